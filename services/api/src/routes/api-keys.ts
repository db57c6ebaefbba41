/**
 * API keys of a workspace (our addition: the spec leaves issuing credentials open).
 * The full key is returned once, at creation; the control state keeps its SHA-256
 * only. Revocation is a control event, so every process (ingest included) stops
 * accepting the key as soon as it folds it.
 */
import { randomUUID } from 'node:crypto'
import { Hono } from 'hono'
import { z } from 'zod'
import type { Cache } from '@svc/shared/cache/types'
import type { ControlWriter } from '@svc/shared/control/control-plane'
import { ROLE_RANK, type Role } from '@svc/shared/control/events'
import { hashApiKey, newApiKey } from '@svc/shared/control/secrets'
import type { ApiKey } from '@svc/shared/control/state'
import { lastUsedKey } from '@svc/shared/control/key-usage'
import { forbidden, notFound } from '@svc/shared/http/errors'
import { mount, ROUTES, targetWorkspace } from '../access.js'
import { actorOf } from '../actor.js'
import { describeRoute } from '../openapi/registry.js'
import { IsoTime } from '../openapi/schemas.js'
import { jsonBody } from './auth.js'

const KEY_ROLES = ['viewer', 'dev', 'admin'] as const

const CreateKeyBody = z.object({
  name: z.string().trim().min(1).max(200),
  project_id: z.string().trim().min(1).max(200).nullish().describe('defaults to "default"'),
  role: z.enum(KEY_ROLES).default('dev'),
})
const KeyParams = z.object({ key_id: z.string().describe('API key id') })
const KeyOut = z.object({
  id: z.string(),
  name: z.string(),
  key_last4: z.string(),
  project_id: z.string(),
  role: z.enum(KEY_ROLES),
  created_at: IsoTime,
  last_used_at: IsoTime.nullable().describe('exact to about a minute'),
})

const TAGS = ['API keys']
describeRoute({
  route: ROUTES.createApiKey,
  summary: 'Create an API key',
  description: 'The full key (dr_ + 40 characters) is in this response only. A key\'s role cannot exceed the creator\'s.',
  tags: TAGS,
  body: CreateKeyBody,
  responses: { 201: { description: 'The key, with its secret', schema: KeyOut.extend({ key: z.string() }) } },
})
describeRoute({ route: ROUTES.listApiKeys, summary: 'List active API keys', tags: TAGS, responses: { 200: { description: 'Active keys', schema: z.object({ keys: z.array(KeyOut) }) } } })
describeRoute({
  route: ROUTES.revokeApiKey,
  summary: 'Revoke an API key',
  description: 'The key stops working at once on ingest and the read API.',
  tags: TAGS,
  params: KeyParams,
  responses: { 204: { description: 'Revoked' } },
})

const describeKey = (k: ApiKey, lastUsedMs: number | null) => ({
  id: k.id,
  name: k.name,
  key_last4: k.key_last4,
  project_id: k.project_id,
  role: k.role,
  created_at: new Date(k.created_at_ms).toISOString(),
  last_used_at: lastUsedMs === null ? null : new Date(lastUsedMs).toISOString(),
})

export function apiKeyRoutes(control: ControlWriter, cache: Cache): Hono {
  const app = new Hono()
  const { state } = control

  mount(app, ROUTES.createApiKey, state, async (c) => {
    const ws = targetWorkspace(c)
    const body = await jsonBody(c, CreateKeyBody)
    const mine = state.roleFor(c.get('principal'), ws.org_id, ws.id)
    if (!mine || ROLE_RANK[mine] < ROLE_RANK[body.role as Role]) throw forbidden(`you cannot create a ${body.role} key: it is above your role ${mine ?? '(none)'}`)
    const key = newApiKey()
    const id = randomUUID()
    await control.append(
      [{ type: 'api_key.created', payload: { key_id: id, org_id: ws.org_id, workspace_id: ws.id, project_id: body.project_id ?? 'default', role: body.role, name: body.name, key_hash: hashApiKey(key), key_last4: key.slice(-4) } }],
      actorOf(c),
    )
    return c.json({ ...describeKey(state.apiKeys.get(id)!, null), key }, 201)
  })

  mount(app, ROUTES.listApiKeys, state, async (c) => {
    const keys = state.activeKeysOf(targetWorkspace(c).id).sort((a, b) => a.created_at_ms - b.created_at_ms)
    const used = await Promise.all(keys.map((k) => cache.get(lastUsedKey(k.id))))
    return c.json({ keys: keys.map((k, i) => describeKey(k, used[i] ? Number(used[i]) : null)) })
  })

  mount(app, ROUTES.revokeApiKey, state, async (c) => {
    const ws = targetWorkspace(c)
    const key = state.apiKeys.get(c.req.param('key_id') ?? '')
    if (!key || key.workspace_id !== ws.id || key.revoked_at_ms !== null) throw notFound(`API key ${c.req.param('key_id')} not found in this workspace`)
    await control.append([{ type: 'api_key.revoked', payload: { key_id: key.id } }], actorOf(c))
    return c.body(null, 204)
  })

  return app
}
