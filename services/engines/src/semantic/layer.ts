/**
 * The semantic layer of a process: the local sentence model, loaded once and lazily
 * (on the first engine run that needs it), shared by every engine in the process, and
 * run in a worker thread of its own (threaded-model.ts) so inference never blocks the
 * event loop that ingest and assembly share in the one-process deployment.
 * If it cannot load (files missing, a checksum that does not match, a runtime error)
 * `embedder()` answers null for the life of the process: the engines then run their
 * lexical algorithms and say so (analysis_mode `deterministic-lexical`), and the
 * status, told to every subscriber (the engines service publishes it for ingestion
 * health), says why. It never throws.
 */
import type { SemanticModelStatus } from '@svc/shared/domain/semantic-model'
import { MODEL_LABEL } from './model-files.js'
import type { SentenceModelOptions } from './sentence-model.js'
import { ThreadedSentenceModel } from './threaded-model.js'
import type { Embedder } from './types.js'

export interface SemanticLayer {
  /** The local sentence model, or null in lexical mode. */
  embedder(): Promise<Embedder | null>
  status(): SemanticModelStatus
  /** Calls `fn` with the status once the load settles (at once when it has); returns the unsubscribe. */
  subscribe(fn: (status: SemanticModelStatus) => void): () => void
  /**
   * Lets the model's work finish and ends its thread, before a process exits (ending
   * it mid-inference would abort the process). The next use starts the thread again.
   */
  close(): Promise<void>
}

const layers = new Map<string, SemanticLayer>()

function createLayer(dir: string, opts: SentenceModelOptions): SemanticLayer {
  let status: SemanticModelStatus = { status: 'not_loaded', model: MODEL_LABEL, reason: '', checked_at_ms: 0 }
  let loading: Promise<ThreadedSentenceModel | null> | null = null
  const listeners = new Set<(s: SemanticModelStatus) => void>()
  const settle = (s: SemanticModelStatus) => {
    status = s
    for (const fn of listeners) fn(s)
  }
  return {
    status: () => status,
    subscribe(fn) {
      listeners.add(fn)
      if (status.status !== 'not_loaded') fn(status)
      return () => listeners.delete(fn)
    },
    embedder() {
      loading ??= ThreadedSentenceModel.load(dir, opts).then(
        (m) => {
          settle({ status: 'loaded', model: MODEL_LABEL, reason: '', checked_at_ms: Date.now() })
          return m
        },
        (err: unknown) => {
          const reason = `${err instanceof Error ? err.message : String(err)} (model directory ${dir}; \`pnpm fetch:model\` fetches it)`.slice(0, 1000)
          settle({ status: 'unavailable', model: MODEL_LABEL, reason, checked_at_ms: Date.now() })
          return null
        },
      )
      return loading
    },
    async close() {
      await (await loading)?.release()
    },
  }
}

/** The process's layer for a model directory: one load per directory per process, whoever asks (the first asker's options apply). */
export function semanticLayer(dir: string, opts: SentenceModelOptions = {}): SemanticLayer {
  let layer = layers.get(dir)
  if (!layer) layers.set(dir, (layer = createLayer(dir, opts)))
  return layer
}
