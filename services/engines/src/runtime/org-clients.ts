/**
 * Each organization's LLM and search clients, built from its stored credentials
 * (opened with the master key, never logged) and rebuilt when a credential
 * changes. No credential: null, and the engines run their deterministic algorithms.
 * A deleted LLM credential therefore stops LLM results from then on; results already
 * written stay.
 */
import type { Config } from '@svc/shared/config'
import { llmContext, openSecret, searchContext, type MasterKey } from '@svc/shared/control/envelope'
import type { ControlState } from '@svc/shared/control/state'
import type { Logger } from '@svc/shared/log'
import { engineLlmTokens } from '@svc/shared/metrics'
import { createHttpSearchClient, type SearchClient } from '../crosscheck/search.js'
import { createLlmClient, type LlmClient } from '../llm/client.js'
import { platformModelSpec } from '../llm/provider.js'

export function orgClients(deps: { state: ControlState; master: MasterKey; config: Config; log: Logger }) {
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
      const client = createHttpSearchClient({ apiKey: openSecret(master, s.secret, searchContext(orgId)), baseUrl: config.SVC_SEARCH_API_BASE })
      searches.set(orgId, { version: s.updated_at_ms, client })
      return client
    },
  }
}
