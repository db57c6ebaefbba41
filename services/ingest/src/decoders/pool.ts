/**
 * The ingest decoders: where each request's CPU work (job.ts: parse, decode,
 * validate, Avro-encode) runs. With size 0 it runs inline on the calling thread;
 * otherwise on a small pool of worker threads, so the main thread only reads
 * bodies, produces the buffers and answers (in the all-in-one, the assembler and
 * the store keep it busy too). The body is transferred to a thread and one buffer of
 * values comes back, never structured-cloned records.
 *
 * A thread that dies (terminated, out of memory, a crash in native code) fails the
 * jobs it held with DecoderCrashed, which the request answers with 503 before
 * anything of it was produced, so the exporter retries; the next job starts a new
 * thread. Threads start on first use and never keep the process alive while idle.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { Logger } from '@svc/shared/log'
import { jobError, runJob, unpack, type DecodeJob, type JobAnswer, type Prepared } from './job.js'

export interface Decoders {
  /** Threads in the pool; 0: inline. */
  readonly size: number
  /** Decodes a request's body into its records; a bad body throws the same HttpError (400) inline or not. */
  run(job: DecodeJob): Promise<Prepared>
  close(): Promise<void>
}

/** The thread running a job exited before answering: nothing of the request was produced. */
export class DecoderCrashed extends Error {}

export type ToThread = { id: number; job: DecodeJob }
export type FromThread = { id: number; answer: JobAnswer }

// Beside this file when run from source (decoder-thread.mjs loads the TypeScript through tsx); in the bundle's
// directory when started compiled (scripts/start.mjs bundles decoder-thread.ts there under this name).
const THREAD_ENTRY = pathToFileURL(join(import.meta.dirname, 'decoder-thread.mjs'))

export function createDecoders(size: number, log?: Logger): Decoders {
  return size > 0 ? new ThreadDecoders(size, log) : inlineDecoders
}

function settle(answer: JobAnswer): Prepared {
  if (!answer.ok) throw jobError(answer.error)
  return unpack(answer.prepared)
}

/** The reference: the same job, on the calling thread. */
const inlineDecoders: Decoders = {
  size: 0,
  run: async (job) => settle(runJob(job)),
  close: async () => {},
}

interface Thread {
  worker: Worker
  pending: Map<number, { resolve(p: Prepared): void; reject(err: Error): void }>
}

export class ThreadDecoders implements Decoders {
  private readonly threads: Array<Thread | null>
  private nextId = 1
  private closed = false

  constructor(
    readonly size: number,
    private readonly log?: Logger,
  ) {
    this.threads = Array.from({ length: size }, () => null)
  }

  run(job: DecodeJob): Promise<Prepared> {
    if (this.closed) return Promise.reject(new DecoderCrashed('the ingest decoders are closed'))
    const thread = this.pick()
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      if (thread.pending.size === 0) thread.worker.ref()
      thread.pending.set(id, { resolve, reject })
      const body = transferable(job.body)
      thread.worker.postMessage({ id, job: { ...job, body } } satisfies ToThread, [body.buffer as ArrayBuffer])
    })
  }

  /** The running workers (tests kill one mid-request). */
  workers(): Worker[] {
    return this.threads.flatMap((t) => (t ? [t.worker] : []))
  }

  async close(): Promise<void> {
    this.closed = true
    await Promise.all(this.workers().map((w) => w.terminate()))
  }

  /** The thread with the fewest jobs, started if it is not running. */
  private pick(): Thread {
    let best = 0
    for (let i = 0; i < this.threads.length; i++) {
      const t = this.threads[i]
      if (!t) return (this.threads[i] = this.start(i))
      if (t.pending.size < this.threads[best]!.pending.size) best = i
    }
    return this.threads[best]!
  }

  private start(slot: number): Thread {
    const worker = new Worker(THREAD_ENTRY, { name: `ingest-decoder-${slot}` })
    const thread: Thread = { worker, pending: new Map() }
    worker.unref()
    worker.on('message', ({ id, answer }: FromThread) => {
      const p = thread.pending.get(id)
      if (!p) return
      thread.pending.delete(id)
      if (thread.pending.size === 0) worker.unref()
      try {
        p.resolve(settle(answer))
      } catch (err) {
        p.reject(err as Error)
      }
    })
    worker.on('error', (err) => this.log?.error({ err, slot }, 'ingest decoder thread failed'))
    worker.on('exit', (code) => {
      if (this.threads[slot] === thread) this.threads[slot] = null
      if (thread.pending.size > 0) this.log?.warn({ slot, code, jobs: thread.pending.size }, 'ingest decoder thread exited with jobs; they are answered 503')
      for (const p of thread.pending.values()) p.reject(new DecoderCrashed(`ingest decoder thread exited (code ${code})`))
      thread.pending.clear()
    })
    return thread
  }
}

/** The body as a view of a buffer of its own, so transferring it takes nothing else along (a small Buffer shares Node's pool). */
function transferable(body: Uint8Array): Uint8Array {
  if (body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer) return body
  return new Uint8Array(body)
}
