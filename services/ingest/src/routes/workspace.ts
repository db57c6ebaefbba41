/**
 * API-key identity endpoints of the ingest service: whoami (which organization and
 * workspace a key writes into) and sdk-config (what the SDK may capture; the SDK
 * fails closed, i.e. sends no text, when this call fails).
 */
import { Hono } from 'hono'
import { captureTextOn } from '@svc/shared/control/settings'
import type { ControlState } from '@svc/shared/control/state'
import { forbidden, notFound } from '@svc/shared/http/errors'
import { apiKeyAuth, apiKeyPrincipal } from '../middleware/api-key.js'

export function workspaceRoutes(state: ControlState, onKeyUsed?: (keyId: string) => void): Hono {
  const app = new Hono()
  const auth = apiKeyAuth(state, onKeyUsed)

  app.get('/v1/auth/whoami', auth, (c) => {
    const p = apiKeyPrincipal(c)
    // resolveApiKey already checked the workspace is live; the org exists whenever its workspace does.
    const org = state.orgs.get(p.org_id)
    const ws = state.workspaces.get(p.workspace_id)
    return c.json({
      key_id: p.key_id,
      role: p.role,
      organization: { id: p.org_id, slug: org?.slug ?? '', name: org?.name ?? '' },
      workspace: { id: p.workspace_id, slug: ws?.slug ?? '', name: ws?.name ?? '' },
      project_id: p.project_id,
    })
  })

  app.get('/v1/workspaces/:ws/sdk-config', auth, (c) => {
    const p = apiKeyPrincipal(c)
    const ref = c.req.param('ws')
    const own = state.workspaces.get(p.workspace_id)
    if (ref !== p.workspace_id && ref !== own?.slug) {
      // Another live workspace (by UUID, or by slug within the key's organization) is 403, anything else 404.
      const other = state.workspaces.get(ref) ?? state.workspaceBySlug(p.org_id, ref)
      if (other && other.deleted_at_ms === null) throw forbidden('this API key belongs to a different workspace')
      throw notFound(`workspace ${ref} not found`)
    }
    return c.json({ capture_text: captureTextOn(state, p.workspace_id) })
  })

  return app
}
