/**
 * The sentence model off the event loop: onnxruntime-node's `session.run` is
 * synchronous on the calling thread (it only defers the call by a setImmediate), so
 * in the one-process deployment every forward pass (~5-15 ms) would stall ingest's
 * HTTP handling and the assembler. Here the model (sentence-model.ts, unchanged: one
 * forward pass per text, one intra-op thread) runs in a worker thread of its own,
 * and this side keeps the Embedder interface and the LRU cache.
 *
 * The cache stays on this side: a hit is a Map lookup (well under a microsecond)
 * where asking the thread costs a message round trip (~55 µs measured), and a
 * repeated text is the common case (policy rules, tool results across traces).
 * Texts already on their way to the thread are not sent twice: concurrent engine runs
 * embedding the same document share one forward pass. The vectors come back
 * transferred, not copied.
 *
 * If the thread dies (a crash, an out-of-memory), the requests it had fail and the
 * next call starts a new one. `release()` ends it gracefully: terminating it during a
 * forward pass would abort the process (see model-thread.ts), so the engines release
 * the model when they stop, before the process exits.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { Lru } from './lru.js'
import { MODEL_DIMS, MODEL_LABEL } from './model-files.js'
import type { SentenceModelOptions } from './sentence-model.js'
import type { Embedder } from './types.js'

/** A request to the thread: embed these distinct texts; or finish the work asked for and end. */
export type ToThread = { id: number; texts: string[] } | { close: true }

/** The thread's messages: loaded or not, then one answer per request (with the thread that ran it). */
export type FromThread =
  | { ready: true }
  | { loadError: string }
  | { id: number; vectors: Float32Array[]; threadId: number }
  | { id: number; error: string }

interface Pending {
  resolve(vectors: Float32Array[]): void
  reject(err: Error): void
}

// The running module's own directory: here from source (model-thread.mjs loads the TypeScript through tsx), or the
// bundle's under .svc-build/ when started compiled (scripts/start.mjs bundles the thread's body beside it under this name).
const THREAD_ENTRY = pathToFileURL(join(import.meta.dirname, 'model-thread.mjs'))

/** Starts a model thread; resolves once its model loaded (the thread's own sha256 checks included). */
function startThread(dir: string): Promise<Worker> {
  const worker = new Worker(THREAD_ENTRY, { workerData: { dir } })
  return new Promise((resolve, reject) => {
    const fail = (err: Error) => {
      void worker.terminate()
      reject(err)
    }
    worker.once('message', (m: FromThread) => ('ready' in m ? resolve(worker) : fail(new Error('loadError' in m ? m.loadError : 'the model thread answered before it was ready'))))
    worker.once('error', fail)
    worker.once('exit', (code) => reject(new Error(`the model thread exited (code ${code}) before it was ready`)))
  })
}

export class ThreadedSentenceModel implements Embedder {
  readonly model = MODEL_LABEL
  readonly dims = MODEL_DIMS
  readonly cache: Lru<Float32Array>
  /** The thread that ran the last forward pass (tests: it is not the caller's). */
  lastThreadId = -1
  private readonly inFlight = new Map<string, Promise<Float32Array>>()
  private readonly pending = new Map<number, Pending>()
  private nextId = 0
  private thread: Promise<Worker>

  private constructor(
    private readonly dir: string,
    first: Worker,
    opts: SentenceModelOptions,
  ) {
    this.cache = new Lru(opts.cacheSize ?? 20_000)
    this.thread = Promise.resolve(this.adopt(first))
  }

  /** Starts the thread and loads the model in it. Throws on any failure (the layer then runs lexically). */
  static async load(dir: string, opts: SentenceModelOptions = {}): Promise<ThreadedSentenceModel> {
    return new ThreadedSentenceModel(dir, await startThread(dir), opts)
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out = new Array<Float32Array>(texts.length)
    const waits: Array<Promise<void>> = []
    const fresh: string[] = []
    const at = new Map<string, number[]>()
    texts.forEach((t, i) => {
      const hit = at.has(t) ? undefined : this.cache.get(t)
      if (hit) return void (out[i] = hit)
      const seen = at.get(t)
      if (seen) return void seen.push(i)
      at.set(t, [i])
      const flying = this.inFlight.get(t)
      if (flying) waits.push(flying.then((v) => void (out[i] = v)))
      else fresh.push(t)
    })
    if (fresh.length) {
      const request = this.request(fresh)
      fresh.forEach((t, k) => {
        const one = request.then((vs) => vs[k]!)
        this.inFlight.set(t, one)
        waits.push(one.then((v) => void (out[at.get(t)![0]!] = v)))
      })
      // Cached (and no longer in flight) whether this call is still waiting or not.
      void request.then(
        (vs) => fresh.forEach((t, k) => (this.inFlight.delete(t), this.cache.set(t, vs[k]!))),
        () => fresh.forEach((t) => this.inFlight.delete(t)),
      )
    }
    await Promise.all(waits)
    // Repeats within the call take the first occurrence's vector.
    for (const idx of at.values()) for (const k of idx.slice(1)) out[k] = out[idx[0]!]!
    return out
  }

  /** Lets the work asked for finish, then ends the thread; a later call starts a new one. */
  async release(): Promise<void> {
    const worker = await this.thread.catch(() => null)
    if (!worker) return
    const exited = new Promise((resolve) => worker.once('exit', resolve))
    worker.ref()
    worker.postMessage({ close: true } satisfies ToThread)
    await exited
  }

  private async request(texts: string[]): Promise<Float32Array[]> {
    let worker = await this.thread.catch(() => null)
    // A thread that died is replaced by the next call.
    if (!worker) worker = await (this.thread = startThread(this.dir).then((w) => this.adopt(w)))
    const id = this.nextId++
    return new Promise<Float32Array[]>((resolve, reject) => {
      // Held while it has work, so a process waiting on the model does not exit under it.
      if (this.pending.size === 0) worker.ref()
      this.pending.set(id, { resolve, reject })
      worker.postMessage({ id, texts } satisfies ToThread)
    })
  }

  /** Wires a started thread's answers and death to the pending requests. */
  private adopt(worker: Worker): Worker {
    worker.unref()
    const settle = (id: number, fn: (p: Pending) => void) => {
      const p = this.pending.get(id)
      if (!p) return
      this.pending.delete(id)
      if (this.pending.size === 0) worker.unref()
      fn(p)
    }
    worker.on('message', (m: FromThread) => {
      if ('vectors' in m) {
        this.lastThreadId = m.threadId
        settle(m.id, (p) => p.resolve(m.vectors))
      } else if ('error' in m) settle(m.id, (p) => p.reject(new Error(m.error)))
    })
    const died = (err: Error) => {
      this.thread = Promise.reject(err)
      this.thread.catch(() => {})
      for (const id of [...this.pending.keys()]) settle(id, (p) => p.reject(err))
    }
    worker.on('error', died)
    worker.on('exit', (code) => died(new Error(`the model thread exited (code ${code})`)))
    return worker
  }
}
