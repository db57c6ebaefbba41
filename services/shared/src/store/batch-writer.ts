import type { Logger } from '../log.js'
import type { EncodedRows } from './row-binary.js'
import type { Store } from './types.js'

export interface BatchWriter {
  /** Resolves once these rows are inserted; rejects if their insert failed (the caller retries). The rows must not change until then. */
  add(rows: EncodedRows): Promise<void>
  /** Inserts everything added so far and waits for it; failures reach the add() callers, not flush(). */
  flush(): Promise<void>
  /** flush(), then reject further adds. */
  close(): Promise<void>
}

interface Batch {
  parts: EncodedRows[]
  rows: number
  waiters: Array<{ resolve(): void; reject(err: unknown): void }>
  /** Ready to insert: full, its interval elapsed, or flushed. */
  sealed: boolean
  /** Settles once its insert has (resolved either way). */
  done: Promise<void>
  settle(): void
}

/**
 * Coalesces rows from concurrent callers into few, large inserts, which is what
 * ClickHouse wants (every insert makes a part). A batch is inserted when it reaches
 * maxRows or flushIntervalMs after its first rows arrived, whichever is first.
 *
 * Up to `maxInFlight` inserts (default 2) run at once, begun in the order their
 * batches were formed: an insert is more than its statement (under chdb its rows
 * are first written to a file, on the libuv pool the embedded log's fsyncs share),
 * so the next batch's bytes travel while the current statement runs; the store
 * runs the statements themselves one at a time. Rows added meanwhile form the next
 * batch. add() resolves only after its rows are stored, so a consumer can commit
 * its offsets after add() and stay at least once.
 */
export function createBatchWriter(opts: {
  store: Store
  table: string
  maxRows: number
  flushIntervalMs: number
  log: Logger
  maxInFlight?: number
}): BatchWriter {
  const { store, table, log } = opts
  const maxRows = Math.max(1, opts.maxRows)
  const maxInFlight = Math.max(1, opts.maxInFlight ?? 2)
  const queue: Batch[] = []
  let timer: NodeJS.Timeout | null = null
  let inFlight = 0
  let closed = false

  const open = (): Batch | undefined => {
    const last = queue[queue.length - 1]
    return last && !last.sealed ? last : undefined
  }

  const sealOpen = () => {
    if (timer) {
      clearTimeout(timer)
      timer = null
    }
    const b = open()
    if (b) b.sealed = true
  }

  const insert = async (batch: Batch) => {
    try {
      await store.insertEncoded(table, batch.parts, { tag: `batch-writer.${table}` })
      for (const w of batch.waiters) w.resolve()
    } catch (err) {
      log.warn({ err, table, rows: batch.rows }, 'batch insert failed; its callers will retry')
      for (const w of batch.waiters) w.reject(err)
    } finally {
      queue.splice(queue.indexOf(batch), 1)
      inFlight--
      batch.settle()
      pump()
    }
  }

  /**
   * Begins the inserts of sealed batches, oldest first, while fewer than maxInFlight run. Inserts begin in queue
   * order and a finished one leaves the queue, so the batches in flight are always the first `inFlight` of it.
   */
  const pump = () => {
    while (inFlight < maxInFlight && queue[inFlight]?.sealed) void insert(queue[inFlight++]!)
  }

  const newBatch = (): Batch => {
    let settle!: () => void
    const done = new Promise<void>((resolve) => (settle = resolve))
    return { parts: [], rows: 0, waiters: [], sealed: false, done, settle }
  }

  const add = (rows: EncodedRows): Promise<void> => {
    if (closed) return Promise.reject(new Error(`batch writer for ${table} is closed`))
    if (rows.count === 0) return Promise.resolve()
    return new Promise<void>((resolve, reject) => {
      let batch = open()
      // Keep each insert near maxRows: rows that would overflow the open batch start the next one.
      if (batch && batch.rows + rows.count > maxRows) {
        sealOpen()
        batch = undefined
      }
      if (!batch) {
        batch = newBatch()
        queue.push(batch)
      }
      batch.parts.push(rows)
      batch.rows += rows.count
      batch.waiters.push({ resolve, reject })
      if (batch.rows >= maxRows) sealOpen()
      else if (!timer)
        timer = setTimeout(() => {
          timer = null
          sealOpen()
          pump()
        }, opts.flushIntervalMs)
      pump()
    })
  }

  const flush = async (): Promise<void> => {
    sealOpen()
    pump()
    // Wait for what was added before this call only (inserts may finish out of order); later adds have their own timer.
    await Promise.all(queue.map((b) => b.done))
  }

  return {
    add,
    flush,
    async close() {
      closed = true
      await flush()
    },
  }
}
