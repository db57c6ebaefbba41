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
}

/**
 * Coalesces rows from concurrent callers into few, large inserts, which is what
 * ClickHouse wants (every insert makes a part). A batch is inserted when it reaches
 * maxRows or flushIntervalMs after its first rows arrived, whichever is first.
 *
 * One insert is in flight at a time: batches land in the order they were formed,
 * and chdb runs one statement at a time anyway. Rows added meanwhile form the next
 * batch. add() resolves only after its rows are stored, so a consumer can commit
 * its offsets after add() and stay at least once.
 */
export function createBatchWriter(opts: {
  store: Store
  table: string
  maxRows: number
  flushIntervalMs: number
  log: Logger
}): BatchWriter {
  const { store, table, log } = opts
  const maxRows = Math.max(1, opts.maxRows)
  const queue: Batch[] = []
  let timer: NodeJS.Timeout | null = null
  let draining: Promise<void> | null = null
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

  const drain = (): Promise<void> => {
    if (draining) return draining
    draining = (async () => {
      while (queue[0]?.sealed) {
        const batch = queue[0]
        try {
          await store.insertEncoded(table, batch.parts, { tag: `batch-writer.${table}` })
          queue.shift()
          for (const w of batch.waiters) w.resolve()
        } catch (err) {
          queue.shift()
          log.warn({ err, table, rows: batch.rows }, 'batch insert failed; its callers will retry')
          for (const w of batch.waiters) w.reject(err)
        }
      }
    })().finally(() => {
      draining = null
    })
    return draining
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
        batch = { parts: [], rows: 0, waiters: [], sealed: false }
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
          void drain()
        }, opts.flushIntervalMs)
      if (queue[0]?.sealed) void drain()
    })
  }

  const flush = async (): Promise<void> => {
    sealOpen()
    // Wait for what was added before this call only; later adds have their own timer.
    const last = queue[queue.length - 1]
    while (last && queue.includes(last)) await drain()
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
