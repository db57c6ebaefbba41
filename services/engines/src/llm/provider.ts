/**
 * From an organization's stored LLM credential (or the platform default) to an AI
 * SDK language model. The credential's provider is whatever the organization typed
 * when it stored it, so the mapping is forgiving about case and a few aliases, and
 * strict about what it cannot reach: an unknown provider with no api_base has no
 * endpoint to call, which is a configuration error, not something to guess around.
 */
import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createMistral } from '@ai-sdk/mistral'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { LanguageModel } from 'ai'

/** One model to call: the decrypted form of a stored credential, or the platform default. */
export interface ModelSpec {
  provider: string
  model_id: string
  /** Plaintext; the caller opens the sealed secret. '' for keyless local servers. */
  api_key: string
  /** Custom endpoint (an OpenAI-compatible server, a proxy, a regional endpoint); null for the provider's own. */
  api_base: string | null
  /**
   * Optional knobs, all optional: headers (Record<string,string>), organization and
   * project (openai), structured_outputs (boolean, OpenAI-compatible servers; default
   * true: send a json_schema response_format rather than plain JSON mode).
   */
  provider_config?: Record<string, unknown>
}

/** Providers with a dedicated SDK package (the endpoint may still be overridden with api_base). */
export const NATIVE_PROVIDERS = ['openai', 'anthropic', 'google', 'mistral'] as const

/**
 * Hosted services that speak the OpenAI chat-completions protocol, so a credential
 * naming one works without an api_base. Anything else needs an api_base.
 */
export const OPENAI_COMPATIBLE_BASES: Readonly<Record<string, string>> = {
  groq: 'https://api.groq.com/openai/v1',
  together: 'https://api.together.xyz/v1',
  togetherai: 'https://api.together.xyz/v1',
  deepseek: 'https://api.deepseek.com/v1',
  fireworks: 'https://api.fireworks.ai/inference/v1',
  xai: 'https://api.x.ai/v1',
  openrouter: 'https://openrouter.ai/api/v1',
  perplexity: 'https://api.perplexity.ai',
}

const ALIASES: Readonly<Record<string, string>> = {
  'azure-openai': 'openai-compatible',
  gemini: 'google',
  'google-genai': 'google',
  'google-generative-ai': 'google',
  claude: 'anthropic',
  openai_compatible: 'openai-compatible',
  openaicompatible: 'openai-compatible',
  'together.ai': 'together',
  'x-ai': 'xai',
  grok: 'xai',
}

export class ProviderConfigError extends Error {
  override name = 'ProviderConfigError'
}

export function normalizeProvider(provider: string): string {
  const p = provider.trim().toLowerCase()
  return ALIASES[p] ?? p
}

const stringRecord = (v: unknown): Record<string, string> | undefined => {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined
  const out: Record<string, string> = {}
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x
  return out
}
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined)
// A trailing slash would make the SDK build "…/v1//chat/completions", which some servers reject.
const trimBase = (b: string | null): string | undefined => (b ? b.replace(/\/+$/, '') : undefined)

/** A short, stable label for accounting and errors: "provider:model". */
export const modelLabel = (spec: ModelSpec): string => `${normalizeProvider(spec.provider)}:${spec.model_id}`

/**
 * Build the model for a spec. `fetchImpl` is for tests and proxies; production
 * uses the global fetch.
 */
export function languageModel(spec: ModelSpec, fetchImpl?: typeof fetch): LanguageModel {
  const provider = normalizeProvider(spec.provider)
  if (!spec.model_id) throw new ProviderConfigError(`LLM credential for provider "${spec.provider}" names no model`)
  const cfg = spec.provider_config ?? {}
  const headers = stringRecord(cfg.headers)
  const baseURL = trimBase(spec.api_base)
  const apiKey = spec.api_key
  const common = { apiKey, headers, fetch: fetchImpl }

  switch (provider) {
    case 'openai': {
      const openai = createOpenAI({ ...common, baseURL, organization: str(cfg.organization), project: str(cfg.project) })
      // A custom base is almost always an OpenAI-compatible server (vLLM, LiteLLM,
      // Ollama, a gateway), which implement chat completions but not the Responses API.
      return baseURL ? openai.chat(spec.model_id) : openai(spec.model_id)
    }
    case 'anthropic':
      return createAnthropic({ ...common, baseURL })(spec.model_id)
    case 'google':
      return createGoogleGenerativeAI({ ...common, baseURL })(spec.model_id)
    case 'mistral':
      return createMistral({ ...common, baseURL })(spec.model_id)
  }

  const base = baseURL ?? OPENAI_COMPATIBLE_BASES[provider]
  if (!base)
    throw new ProviderConfigError(
      `LLM provider "${spec.provider}" is not one this service knows how to reach without an api_base; ` +
        `store the credential with an api_base (an OpenAI-compatible endpoint) or use one of: ` +
        `${[...NATIVE_PROVIDERS, ...Object.keys(OPENAI_COMPATIBLE_BASES)].join(', ')}`,
    )
  return createOpenAICompatible({
    ...common,
    name: provider,
    baseURL: base,
    // Undefined rather than '' so keyless local servers get no empty Bearer header.
    apiKey: apiKey || undefined,
    includeUsage: true,
    supportsStructuredOutputs: cfg.structured_outputs !== false,
  })(spec.model_id)
}

/**
 * The platform default model from the service's configuration (the caller maps
 * SVC_PLATFORM_LLM_* to it); null when the platform has none, which turns fallback off.
 */
export function platformModelSpec(
  cfg: { provider?: string; model_id?: string; api_key?: string; api_base?: string | null } | null | undefined,
): ModelSpec | null {
  if (!cfg?.provider || !cfg.model_id) return null
  return { provider: cfg.provider, model_id: cfg.model_id, api_key: cfg.api_key ?? '', api_base: cfg.api_base || null }
}
