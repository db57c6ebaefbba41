import type { Logger } from '../log.js'
import type { Store } from './types.js'

export interface BatchWriter<Row> {
  /** Resolves once these rows are inserted; rejects if their insert failed (the caller retries). */
  add(rows: Row[]): Promise<void>
  /** Inserts everything added so far and waits for it; failures reach the add() callers, not flush(). */
  flush(): Promise<void>
  /** flush(), then reject further adds. */
  close(): Promise<void>
}

interface Batch<Row> {
  rows: Row[]
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
export function createBatchWriter<Row extends Record<string, unknown> = Record<string, unknown>>(opts: {
  store: Store
  table: string
  maxRows: number
  flushIntervalMs: number
  log: Logger
}): BatchWriter<Row> {
  const { store, table, log } = opts
  const maxRows = Math.max(1, opts.maxRows)
  const queue: Array<Batch<Row>> = []
  let timer: NodeJS.Timeout | null = null
  let draining: Promise<void> | null = null
  let closed = false

  const open = (): Batch<Row> | undefined => {
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
          await store.insert(table, batch.rows, { tag: `batch-writer.${table}` })
          queue.shift()
          for (const w of batch.waiters) w.resolve()
        } catch (err) {
          queue.shift()
          log.warn({ err, table, rows: batch.rows.length }, 'batch insert failed; its callers will retry')
          for (const w of batch.waiters) w.reject(err)
        }
      }
    })().finally(() => {
      draining = null
    })
    return draining
  }

  const add = (rows: Row[]): Promise<void> => {
    if (closed) return Promise.reject(new Error(`batch writer for ${table} is closed`))
    if (rows.length === 0) return Promise.resolve()
    return new Promise<void>((resolve, reject) => {
      let batch = open()
      // Keep each insert near maxRows: rows that would overflow the open batch start the next one.
      if (batch && batch.rows.length + rows.length > maxRows) {
        sealOpen()
        batch = undefined
      }
      if (!batch) {
        batch = { rows: [], waiters: [], sealed: false }
        queue.push(batch)
      }
      // A loop, not push(...rows): spreading tens of thousands of arguments can overflow the stack.
      for (const r of rows) batch.rows.push(r)
      batch.waiters.push({ resolve, reject })
      if (batch.rows.length >= maxRows) sealOpen()
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
