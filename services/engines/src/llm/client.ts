/**
 * The one way engines call a model: structured output checked against a zod
 * schema, a bounded number of calls in flight per client, a per-call deadline, and
 * token accounting. Retries are the engine runtime's job (it backs off and records
 * stalls), so the SDK retries at most once here; a second layer of retries would
 * only hide an outage from ingestion health.
 *
 * Fallback rule: the platform default model is tried only when the organization's
 * model could not be reached (connection refused/reset, DNS, timeout, HTTP 5xx).
 * A 4xx (bad key, unknown model, quota) is the organization's configuration
 * telling us something; answering from another model would hide it, so it fails.
 */
import { APICallError, generateText, NoObjectGeneratedError, NoOutputGeneratedError, Output, RetryError } from 'ai'
import type { z } from 'zod'
import { languageModel, modelLabel, type ModelSpec } from './provider.js'

export type { ModelSpec } from './provider.js'

export interface LlmUsage {
  model: string
  inputTokens: number
  outputTokens: number
  fallback: boolean
  /** Which engine made the call. */
  engine: string
}

export interface LlmClientOptions {
  primary: ModelSpec
  /** The platform default; null when fallback is disabled or the platform has none. */
  fallback: ModelSpec | null
  /** Calls in flight at once, across all engines sharing this client. */
  concurrency: number
  /** Deadline for one model call, measured from when it gets a slot. */
  timeoutMs: number
  onUsage?(u: LlmUsage): void
  /** SDK-level retries per call; default 0. */
  maxRetries?: number
  /**
   * How the organization's model (primary) is reached: the egress-guarded fetch
   * (shared/net/egress.ts), the global fetch when unset. The platform fallback is
   * the operator's own choice of address and always uses the global fetch.
   */
  primaryFetch?: typeof fetch
}

export interface LlmRequest {
  system: string
  prompt: string
  maxOutputTokens?: number
}

export interface LlmResult<T> {
  object: T
  usage: { inputTokens: number; outputTokens: number }
  /** "provider:model" of the model that answered. */
  model: string
  fallback: boolean
}

export interface LlmClient {
  generate<T>(schema: z.ZodType<T>, req: LlmRequest, engine: string): Promise<LlmResult<T>>
}

/**
 * unreachable: no answer from the provider (network, timeout, 5xx);
 * rejected: the provider refused the request (4xx);
 * invalid_output: an answer that is not the requested JSON;
 * config: the credential cannot be turned into a model.
 */
export type LlmErrorKind = 'unreachable' | 'rejected' | 'invalid_output' | 'config'

export class LlmError extends Error {
  override name = 'LlmError'
  constructor(
    message: string,
    readonly kind: LlmErrorKind,
    readonly model: string,
    readonly status: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

export const DEFAULT_LLM_CONCURRENCY = 4
export const DEFAULT_LLM_TIMEOUT_MS = 30_000

/** A counting semaphore; waiters are served in arrival order. */
export class Semaphore {
  private active = 0
  private readonly waiters: Array<() => void> = []
  constructor(private readonly limit: number) {
    if (!(limit >= 1)) throw new Error('semaphore limit must be at least 1')
  }
  async run<R>(fn: () => Promise<R>): Promise<R> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiters.push(resolve))
    else this.active++
    try {
      return await fn()
    } finally {
      // Hand the slot straight to the next waiter so the count never dips and lets a newcomer jump the queue.
      const next = this.waiters.shift()
      if (next) next()
      else this.active--
    }
  }
}

function statusOf(e: unknown): number | null {
  return APICallError.isInstance(e) && typeof e.statusCode === 'number' ? e.statusCode : null
}

/** Turn whatever the SDK threw into an LlmError with the kind that decides fallback. */
export function classifyError(e: unknown, model: string, timedOut: boolean): LlmError {
  if (e instanceof LlmError) return e
  // With retries the SDK wraps the last attempt's error.
  const err = RetryError.isInstance(e) ? e.lastError : e
  if (timedOut) return new LlmError(`${model}: no answer within the deadline`, 'unreachable', model, null, { cause: err })
  if (NoObjectGeneratedError.isInstance(err) || NoOutputGeneratedError.isInstance(err))
    return new LlmError(`${model}: answer is not the requested JSON: ${err.message}`, 'invalid_output', model, null, { cause: err })
  if (APICallError.isInstance(err)) {
    const status = statusOf(err)
    if (status === null || status >= 500)
      return new LlmError(`${model}: provider unreachable: ${err.message}`, 'unreachable', model, status, { cause: err })
    return new LlmError(`${model}: provider rejected the request (HTTP ${status}): ${err.message}`, 'rejected', model, status, { cause: err })
  }
  const name = err instanceof Error ? err.name : ''
  if (name === 'AI_TypeValidationError' || name === 'AI_JSONParseError')
    return new LlmError(`${model}: answer is not the requested JSON: ${(err as Error).message}`, 'invalid_output', model, null, { cause: err })
  if (name === 'ProviderConfigError' || name === 'AI_LoadAPIKeyError')
    return new LlmError(`${model}: ${(err as Error).message}`, 'config', model, null, { cause: err })
  const msg = err instanceof Error ? err.message : String(err)
  return new LlmError(`${model}: ${msg}`, 'unreachable', model, null, { cause: err })
}

const usageOf = (u: { inputTokens?: number | undefined; outputTokens?: number | undefined } | undefined) => ({
  inputTokens: u?.inputTokens ?? 0,
  outputTokens: u?.outputTokens ?? 0,
})

export function createLlmClient(opts: LlmClientOptions): LlmClient {
  const slots = new Semaphore(Math.max(1, Math.floor(opts.concurrency || DEFAULT_LLM_CONCURRENCY)))
  const timeoutMs = opts.timeoutMs > 0 ? opts.timeoutMs : DEFAULT_LLM_TIMEOUT_MS
  const report = (u: LlmUsage) => {
    try {
      opts.onUsage?.(u)
    } catch {
      // Accounting must never fail the analysis it accounts for.
    }
  }

  async function once<T>(spec: ModelSpec, fallback: boolean, schema: z.ZodType<T>, req: LlmRequest, engine: string): Promise<LlmResult<T>> {
    const label = modelLabel(spec)
    let model
    try {
      model = languageModel(spec, fallback ? undefined : opts.primaryFetch)
    } catch (e) {
      throw new LlmError(`${label}: ${(e as Error).message}`, 'config', label, null, { cause: e })
    }
    const abort = new AbortController()
    const timer = setTimeout(() => abort.abort(new DOMException('model call timed out', 'TimeoutError')), timeoutMs)
    try {
      const res = await generateText({
        model,
        system: req.system,
        prompt: req.prompt,
        output: Output.object({ schema }),
        maxOutputTokens: req.maxOutputTokens,
        temperature: 0,
        maxRetries: opts.maxRetries ?? 0,
        abortSignal: abort.signal,
      })
      const usage = usageOf(res.usage)
      report({ model: label, ...usage, fallback, engine })
      return { object: res.output as T, usage, model: label, fallback }
    } catch (e) {
      // The provider was paid for an answer we could not use; count it all the same.
      if (NoObjectGeneratedError.isInstance(e) && e.usage) report({ model: label, ...usageOf(e.usage), fallback, engine })
      throw classifyError(e, label, abort.signal.aborted)
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    generate<T>(schema: z.ZodType<T>, req: LlmRequest, engine: string): Promise<LlmResult<T>> {
      return slots.run(async () => {
        try {
          return await once(opts.primary, false, schema, req, engine)
        } catch (e) {
          const primaryErr = e as LlmError
          if (primaryErr.kind !== 'unreachable' || !opts.fallback) throw primaryErr
          try {
            return await once(opts.fallback, true, schema, req, engine)
          } catch (f) {
            const fe = f as LlmError
            throw new LlmError(`${primaryErr.message}; platform fallback failed too: ${fe.message}`, fe.kind, fe.model, fe.status, { cause: fe })
          }
        }
      })
    },
  }
}
