/**
 * Each organization's LLM and search clients, built from its stored credentials
 * (opened with the master key, never logged) and rebuilt when a credential
 * changes. No credential: null, and the engines run their deterministic algorithms.
 * A deleted LLM credential therefore stops LLM results from then on; results already
 * written stay. Every call that carries the organization's key goes through the
 * egress guard (`egressFor`); the platform default model, an address the operator
 * chose for the operator's own key, does not.
 */
import type { Config } from '@svc/shared/config'
import { llmContext, openSecret, searchContext, type MasterKey } from '@svc/shared/control/envelope'
import type { ControlState } from '@svc/shared/control/state'
import type { Logger } from '@svc/shared/log'
import { engineLlmTokens } from '@svc/shared/metrics'
import { egressFetch } from '@svc/shared/net/egress'
import { createHttpSearchClient, type SearchClient } from '../crosscheck/search.js'
import { createLlmClient, type LlmClient } from '../llm/client.js'
import { platformModelSpec } from '../llm/provider.js'

/** A refused host is logged at most this often: an engine retries every job that needs it. */
const REFUSAL_LOG_EVERY_MS = 60_000

/**
 * The fetch of the organization's provider, embedding and search calls: public
 * addresses only unless SVC_EGRESS_ALLOW_PRIVATE. A refusal fails the call as an
 * unreachable provider does (the engine stalls in ingestion health) and is logged
 * with what to do about it.
 */
export function egressFor(config: Config, log: Logger): typeof fetch {
  const logged = new Map<string, number>()
  return egressFetch({
    allowPrivate: config.SVC_EGRESS_ALLOW_PRIVATE,
    onRefused: (e) => {
      const now = Date.now()
      if (now - (logged.get(e.host) ?? -Infinity) < REFUSAL_LOG_EVERY_MS) return
      logged.set(e.host, now)
      log.warn({ host: e.host, address: e.address, reason: e.reason }, `outbound call with an organization's key refused: ${e.message}`)
    },
  })
}

export function orgClients(deps: { state: ControlState; master: MasterKey; config: Config; log: Logger; fetch: typeof fetch }) {
  const { state, master, config } = deps
  const platform = platformModelSpec({
    provider: config.SVC_PLATFORM_LLM_PROVIDER,
    model_id: config.SVC_PLATFORM_LLM_MODEL,
    api_key: config.SVC_PLATFORM_LLM_API_KEY,
    api_base: config.SVC_PLATFORM_LLM_API_BASE ?? null,
  })
  const llms = new Map<string, { version: string; client: LlmClient }>()
  const searches = new Map<string, { version: number; client: SearchClient }>()
  return {
    llm(orgId: string): LlmClient | null {
      const creds = state.credentialsOf(orgId)
      const c = creds.llm
      if (!c) return null
      const version = `${c.updated_at_ms}:${creds.llm_fallback}`
      const hit = llms.get(orgId)
      if (hit?.version === version) return hit.client
      const client = createLlmClient({
        primary: {
          provider: c.provider,
          model_id: c.model_id,
          api_key: c.secret ? openSecret(master, c.secret, llmContext(orgId)) : '',
          api_base: c.api_base,
          provider_config: c.provider_config,
        },
        fallback: creds.llm_fallback ? platform : null,
        concurrency: config.SVC_ENGINE_LLM_CONCURRENCY,
        timeoutMs: config.SVC_ENGINE_LLM_TIMEOUT_MS,
        primaryFetch: deps.fetch,
        onUsage: (u) => {
          engineLlmTokens.inc({ engine: u.engine, direction: 'input' }, u.inputTokens)
          engineLlmTokens.inc({ engine: u.engine, direction: 'output' }, u.outputTokens)
        },
      })
      llms.set(orgId, { version, client })
      return client
    },
    search(orgId: string): SearchClient | null {
      const s = state.credentialsOf(orgId).search
      if (!s) return null
      const hit = searches.get(orgId)
      if (hit?.version === s.updated_at_ms) return hit.client
      const client = createHttpSearchClient({ apiKey: openSecret(master, s.secret, searchContext(orgId)), baseUrl: config.SVC_SEARCH_API_BASE, fetch: deps.fetch })
      searches.set(orgId, { version: s.updated_at_ms, client })
      return client
    },
  }
}
