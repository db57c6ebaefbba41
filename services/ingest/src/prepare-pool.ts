/**
 * Where ingest requests are parsed and prepared (prepare.ts): on `threads` worker
 * threads, or on the calling thread when there are none. In the one-process
 * deployment everything else of the hot path (the log, assembly, row building)
 * runs on the main thread, and this work (JSON.parse, the OTLP decoders, Avro
 * encoding, and the garbage of the parsed body) is most of ingest's share of it:
 * on a thread of its own it uses the second core.
 *
 * A request's body moves to its thread (it stays charged to the in-flight budget
 * until the records are durable), and its records come back packed into one buffer
 * per topic, also moved, not copied: the main thread only cuts views of it. A
 * thread that dies fails its requests with 503 (the exporter sends them again) and
 * is started afresh.
 *
 * The threads are the process's, not an ingest app's (sharedThreadPool): every app
 * of a process (tests build many) uses the same ones, and idle they do not keep the
 * process alive.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { OutgoingRecord } from '@svc/shared/bus/types'
import { HttpError } from '@svc/shared/http/errors'
import type { Logger } from '@svc/shared/log'
import { unavailable } from './middleware/backpressure.js'
import { runPrepare, type PrepareJob } from './prepare.js'
import type { Prepared } from './routes/accept.js'

export interface PreparePool {
  run(job: PrepareJob): Promise<Prepared>
  close(): Promise<void>
}

/** A Prepared as it crosses threads: each topic's records as one buffer of values and their keys. */
export interface PackedPrepared extends Omit<Prepared, 'records'> {
  records: Array<{ topic: string; keys: Array<string | null>; values: ArrayBuffer; ends: Uint32Array }>
}

/** What a thread answers for a job: the prepared records, or the error (an HttpError's parts, so it can be thrown again here). */
export type FromThread = { id: number; ok: PackedPrepared } | { id: number; error: { status?: number; code?: string; message: string; detail?: unknown } }

/** Prepares on the calling thread. */
export const inlinePrepare: PreparePool = { run: async (job) => runPrepare(job), close: async () => {} }

export function pack(p: Prepared): { packed: PackedPrepared; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = []
  const records = p.records.map(({ topic, records }) => {
    let total = 0
    for (const r of records) total += r.value.length
    const values = new ArrayBuffer(total)
    const view = new Uint8Array(values)
    const ends = new Uint32Array(records.length)
    let at = 0
    records.forEach((r, i) => {
      view.set(r.value, at)
      at += r.value.length
      ends[i] = at
    })
    transfer.push(values, ends.buffer as ArrayBuffer)
    return { topic, keys: records.map((r) => r.key), values, ends }
  })
  return { packed: { ...p, records }, transfer }
}

export function unpack(p: PackedPrepared): Prepared {
  const records = p.records.map(({ topic, keys, values, ends }) => {
    const out: OutgoingRecord[] = new Array(keys.length)
    let at = 0
    for (let i = 0; i < keys.length; i++) {
      out[i] = { key: keys[i]!, value: Buffer.from(values, at, ends[i]! - at) }
      at = ends[i]!
    }
    return { topic, records: out }
  })
  return { ...p, records }
}

// From source the thread's entry registers tsx first (prepare-thread.mjs); started compiled
// (scripts/start.mjs), the bundle has its own prepare-thread.mjs beside main.mjs.
const THREAD_ENTRY = pathToFileURL(join(import.meta.dirname, 'prepare-thread.mjs'))

interface Pending {
  resolve(p: Prepared): void
  reject(err: unknown): void
}

/** `threads` worker threads, each job to the one with the fewest in flight. */
export function threadPool(threads: number, log: Logger): PreparePool {
  let nextId = 0
  let closed = false
  const slots: Array<{ worker: Worker; pending: Map<number, Pending> } | null> = new Array(threads).fill(null)
  const start = (i: number) => {
    const worker = new Worker(THREAD_ENTRY)
    // Idle threads must not keep the process alive; a job in flight holds it (ref below).
    worker.unref()
    const slot = { worker, pending: new Map<number, Pending>() }
    worker.on('message', (m: FromThread) => {
      const p = slot.pending.get(m.id)
      if (!p) return
      slot.pending.delete(m.id)
      if (slot.pending.size === 0) worker.unref()
      if ('ok' in m) p.resolve(unpack(m.ok))
      else p.reject(m.error.status ? new HttpError(m.error.status as HttpError['status'], m.error.code ?? 'error', m.error.message, m.error.detail) : new Error(m.error.message))
    })
    const fail = (err: unknown) => {
      if (slots[i] !== slot) return
      slots[i] = null
      if (!closed) log.error({ err, pending: slot.pending.size }, 'an ingest thread stopped; its requests get 503 and a new thread starts')
      for (const p of slot.pending.values()) p.reject(unavailable('the request could not be prepared; retry'))
      slot.pending.clear()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`ingest thread exited with code ${code}`)))
    slots[i] = slot
    return slot
  }
  return {
    run(job) {
      if (closed) return Promise.reject(unavailable('ingest is shutting down; retry'))
      let best = 0
      for (let i = 1; i < threads; i++) if ((slots[i]?.pending.size ?? 0) < (slots[best]?.pending.size ?? 0)) best = i
      const slot = slots[best] ?? start(best)
      const id = ++nextId
      return new Promise<Prepared>((resolve, reject) => {
        slot.pending.set(id, { resolve, reject })
        slot.worker.ref()
        // A body that owns its memory (any but the smallest) moves to the thread instead of being copied.
        const { buffer, byteOffset, byteLength } = job.bytes
        const owned = byteOffset === 0 && byteLength === buffer.byteLength && buffer instanceof ArrayBuffer
        slot.worker.postMessage({ id, job }, owned ? [buffer] : [])
      })
    },
    async close() {
      closed = true
      await Promise.all(slots.flatMap((s) => (s ? [s.worker.terminate()] : [])))
    },
  }
}

const shared = new Map<number, PreparePool>()

/** The process's pool of `threads` threads, started on first use and never closed: close() of what it returns does nothing. */
export function sharedThreadPool(threads: number, log: Logger): PreparePool {
  let pool = shared.get(threads)
  if (!pool) shared.set(threads, (pool = threadPool(threads, log)))
  return { run: (job) => pool.run(job), close: async () => {} }
}
