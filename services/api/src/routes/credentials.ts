/**
 * An organization's LLM and search credentials. The API key is sealed with envelope
 * encryption (control/envelope.ts) before it leaves this handler; responses, logs
 * and the control topic only ever carry the sealed form and the last four
 * characters. Nobody, an owner included, can read a key back.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import type { ControlWriter } from '@svc/shared/control/control-plane'
import { llmContext, sealSecret, searchContext, type MasterKey } from '@svc/shared/control/envelope'
import { movesKeptKey, type ControlState } from '@svc/shared/control/state'
import { conflict, unprocessable } from '@svc/shared/http/errors'
import { literalHostReason } from '@svc/shared/net/private-address'
import { mount, ROUTES, targetOrg } from '../access.js'
import { actorOf } from '../actor.js'
import { describeRoute } from '../openapi/registry.js'
import { jsonBody } from './auth.js'

const last4 = (key: string) => key.slice(-4)

const PutLlmBody = z.object({
  provider: z.string().trim().min(1).max(100).describe('lower-cased'),
  model_id: z.string().trim().min(1).max(200),
  api_key: z.string().min(1).max(4096).nullish().describe('omitted or null keeps the stored key'),
  api_base: z
    .string()
    .url()
    .max(2048)
    .refine((u) => /^https?:$/.test(new URL(u).protocol), 'must be an http or https URL')
    .nullish()
    .describe('custom endpoint; changing it (or provider) needs api_key again'),
  provider_config: z.record(z.unknown()).default({}),
})
const FallbackBody = z.object({ enabled: z.boolean() }).strict()
const PutSearchBody = z.object({ api_key: z.string().min(1).max(4096) }).strict()

const LlmOut = z.object({
  configured: z.boolean(),
  provider: z.string(),
  model_id: z.string(),
  api_key_last4: z.string(),
  api_base: z.string().nullable(),
  fallback_enabled: z.boolean(),
})
const SearchOut = z.object({ configured: z.boolean(), status: z.enum(['configured', 'not_configured']), api_key_last4: z.string() })

const TAGS = ['Credentials']
describeRoute({ route: ROUTES.getLlmCredentials, summary: 'Get the LLM credential', description: 'The key itself is never readable back.', tags: TAGS, responses: { 200: { description: 'The LLM credential', schema: LlmOut } } })
describeRoute({
  route: ROUTES.putLlmCredentials,
  summary: 'Set the LLM credential',
  description:
    'The key is sealed with envelope encryption before it leaves the handler. Omitting api_key keeps the stored key only for the same provider and api_base: ' +
    'a change of either without api_key answers 422, as does an api_base naming a private or loopback IP address (unless the operator allows private egress).',
  tags: TAGS,
  body: PutLlmBody,
  responses: { 200: { description: 'The LLM credential', schema: LlmOut } },
})
describeRoute({ route: ROUTES.deleteLlmCredentials, summary: 'Delete the LLM credential', tags: TAGS, responses: { 204: { description: 'Deleted' } } })
describeRoute({
  route: ROUTES.patchLlmFallback,
  summary: 'Turn the platform-model fallback on or off',
  tags: TAGS,
  body: FallbackBody,
  responses: { 200: { description: 'The LLM credential', schema: LlmOut } },
})
describeRoute({ route: ROUTES.getSearchCredentials, summary: 'Get the search credential status', tags: TAGS, responses: { 200: { description: 'The search credential', schema: SearchOut } } })
describeRoute({ route: ROUTES.putSearchCredentials, summary: 'Set the search credential', tags: TAGS, body: PutSearchBody, responses: { 200: { description: 'The search credential', schema: SearchOut } } })
describeRoute({ route: ROUTES.deleteSearchCredentials, summary: 'Delete the search credential', tags: TAGS, responses: { 204: { description: 'Deleted' } } })

function llmView(state: ControlState, orgId: string) {
  const { llm, llm_fallback } = state.credentialsOf(orgId)
  return {
    configured: llm !== null,
    provider: llm?.provider ?? '',
    model_id: llm?.model_id ?? '',
    api_key_last4: llm?.api_key_last4 ?? '',
    api_base: llm?.api_base ?? null,
    fallback_enabled: llm_fallback,
  }
}

function searchView(state: ControlState, orgId: string) {
  const { search } = state.credentialsOf(orgId)
  return { configured: search !== null, status: search ? 'configured' : 'not_configured', api_key_last4: search?.api_key_last4 ?? '' }
}

/**
 * What a PUT may store, checked against the folded state: an api_base that is an IP
 * literal must be public unless the operator allows private egress (names are
 * checked by the engines when they connect), and the stored key cannot be kept
 * across a change of provider or api_base (the fold enforces this too, for races).
 */
function checkLlmPut(state: ControlState, orgId: string, next: { provider: string; api_base: string | null; keepKey: boolean }, egressAllowPrivate: boolean): void {
  const refused = next.api_base !== null && !egressAllowPrivate ? literalHostReason(next.api_base) : null
  if (refused)
    throw unprocessable(
      `api_base names a ${refused} address, which the engines do not call: only public addresses are reached unless the operator sets SVC_EGRESS_ALLOW_PRIVATE=true`,
      { field: 'api_base' },
    )
  if (next.keepKey && movesKeptKey(state.credentialsOf(orgId).llm, next))
    throw unprocessable('the stored api_key belongs to the current provider and api_base: send api_key again to change either of them', { field: 'api_key' })
}

export function credentialRoutes(control: ControlWriter, master: MasterKey, opts: { egressAllowPrivate: boolean }): Hono {
  const app = new Hono()
  const { state } = control

  mount(app, ROUTES.getLlmCredentials, state, (c) => c.json(llmView(state, targetOrg(c).id)))
  mount(app, ROUTES.putLlmCredentials, state, async (c) => {
    const org = targetOrg(c)
    const body = await jsonBody(c, PutLlmBody)
    const key = body.api_key ?? null
    const provider = body.provider.toLowerCase()
    const apiBase = body.api_base ?? null
    checkLlmPut(state, org.id, { provider, api_base: apiBase, keepKey: key === null }, opts.egressAllowPrivate)
    await control.append(
      [{
        type: 'credential.llm_set',
        payload: {
          org_id: org.id,
          provider,
          model_id: body.model_id,
          api_base: apiBase,
          provider_config: body.provider_config,
          secret: key === null ? null : sealSecret(master, key, llmContext(org.id)),
          api_key_last4: key === null ? null : last4(key),
        },
      }],
      actorOf(c),
    )
    // Another replica's PUT can fold between the check and this one; the fold then
    // ignores a kept key that would move, and this request must not answer as if stored.
    const now = state.credentialsOf(org.id).llm
    if (now?.provider !== provider || now.api_base !== apiBase)
      throw conflict('the LLM credential was changed by another request meanwhile; read it and send the change again (with api_key to change provider or api_base)')
    return c.json(llmView(state, org.id))
  })
  mount(app, ROUTES.deleteLlmCredentials, state, async (c) => {
    const org = targetOrg(c)
    await control.append([{ type: 'credential.llm_deleted', payload: { org_id: org.id } }], actorOf(c))
    return c.body(null, 204)
  })
  mount(app, ROUTES.patchLlmFallback, state, async (c) => {
    const org = targetOrg(c)
    const body = await jsonBody(c, FallbackBody)
    await control.append([{ type: 'credential.llm_fallback_set', payload: { org_id: org.id, enabled: body.enabled } }], actorOf(c))
    return c.json(llmView(state, org.id))
  })

  mount(app, ROUTES.getSearchCredentials, state, (c) => c.json(searchView(state, targetOrg(c).id)))
  mount(app, ROUTES.putSearchCredentials, state, async (c) => {
    const org = targetOrg(c)
    const body = await jsonBody(c, PutSearchBody)
    await control.append(
      [{ type: 'credential.search_set', payload: { org_id: org.id, secret: sealSecret(master, body.api_key, searchContext(org.id)), api_key_last4: last4(body.api_key) } }],
      actorOf(c),
    )
    return c.json(searchView(state, org.id))
  })
  mount(app, ROUTES.deleteSearchCredentials, state, async (c) => {
    const org = targetOrg(c)
    await control.append([{ type: 'credential.search_deleted', payload: { org_id: org.id } }], actorOf(c))
    return c.body(null, 204)
  })

  return app
}
