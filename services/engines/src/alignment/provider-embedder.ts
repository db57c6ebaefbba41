/**
 * The organization's embedding model, from its LLM credential, through the AI
 * SDK's embedMany: openai → text-embedding-3-small (or provider_config.embedding_model);
 * google, mistral and OpenAI-compatible providers → provider_config.embedding_model
 * when set; anthropic (no embedding API) and anything without a model → none (the
 * local sentence model embeds, or the lexical one without it). Built per organization
 * and rebuilt when the credential changes.
 */
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createMistral } from '@ai-sdk/mistral'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { embedMany, type EmbeddingModel } from 'ai'
import { llmContext, openSecret, type MasterKey } from '@svc/shared/control/envelope'
import type { ControlState } from '@svc/shared/control/state'
import { normalizeProvider, OPENAI_COMPATIBLE_BASES, type ModelSpec } from '../llm/provider.js'
import type { Embedder } from '../semantic/types.js'

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined)
const trimBase = (b: string | null): string | undefined => (b ? b.replace(/\/+$/, '') : undefined)

/** The embedding model of a credential, or null when its provider has none configured. */
export function embeddingModelOf(spec: ModelSpec, fetchImpl?: typeof fetch): { label: string; model: EmbeddingModel } | null {
  const provider = normalizeProvider(spec.provider)
  const cfg = spec.provider_config ?? {}
  const configured = str(cfg.embedding_model)
  const baseURL = trimBase(spec.api_base)
  const common = { apiKey: spec.api_key, fetch: fetchImpl }
  switch (provider) {
    case 'openai': {
      const id = configured ?? 'text-embedding-3-small'
      return { label: `openai:${id}`, model: createOpenAI({ ...common, baseURL }).embedding(id) }
    }
    case 'anthropic':
      return null
    case 'google':
      return configured ? { label: `google:${configured}`, model: createGoogleGenerativeAI({ ...common, baseURL }).embeddingModel(configured) } : null
    case 'mistral':
      return configured ? { label: `mistral:${configured}`, model: createMistral({ ...common, baseURL }).embeddingModel(configured) } : null
  }
  const base = baseURL ?? OPENAI_COMPATIBLE_BASES[provider]
  if (!configured || !base) return null
  return { label: `${provider}:${configured}`, model: createOpenAICompatible({ ...common, apiKey: spec.api_key || undefined, name: provider, baseURL: base }).embeddingModel(configured) }
}

export function providerEmbedder(spec: ModelSpec, fetchImpl?: typeof fetch): Embedder | null {
  const m = embeddingModelOf(spec, fetchImpl)
  if (!m) return null
  return {
    model: m.label,
    // Whatever the provider's model returns.
    dims: 0,
    async embed(texts) {
      if (texts.length === 0) return []
      const r = await embedMany({ model: m.model, values: texts, maxRetries: 0, abortSignal: AbortSignal.timeout(60_000) })
      return r.embeddings.map((e) => {
        const norm = Math.sqrt(e.reduce((s, x) => s + x * x, 0))
        return Float32Array.from(e, (x) => (norm === 0 ? x : x / norm))
      })
    },
  }
}

/**
 * Each organization's provider embedder: its provider's model with a credential that
 * has one, else null. `fetch` is the egress-guarded one (runtime/org-clients.ts egressFor).
 */
export function orgEmbedders(deps: { state: ControlState; master: MasterKey; fetch?: typeof fetch }) {
  const cache = new Map<string, { version: number; embedder: Embedder | null }>()
  return (orgId: string): Embedder | null => {
    const c = deps.state.credentialsOf(orgId).llm
    if (!c) return null
    const hit = cache.get(orgId)
    if (hit?.version === c.updated_at_ms) return hit.embedder
    const spec: ModelSpec = {
      provider: c.provider,
      model_id: c.model_id,
      api_key: c.secret ? openSecret(deps.master, c.secret, llmContext(orgId)) : '',
      api_base: c.api_base,
      provider_config: c.provider_config,
    }
    const embedder = providerEmbedder(spec, deps.fetch)
    cache.set(orgId, { version: c.updated_at_ms, embedder })
    return embedder
  }
}
