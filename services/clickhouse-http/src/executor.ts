/**
 * Runs a request's statement on the process's chdb engine. Each request gets a
 * session of its own (a chdb Session on the store's data path: another connection
 * to the same engine, opened in well under a millisecond), so what a request sets —
 * the analyst's readonly=1 and limits, its settings, its query parameters
 * (`SET param_x`: ClickHouse's own parameter mechanism, run by the engine, never
 * spliced), its database — lives and dies with it and never touches the service's
 * own session. Queries stream chunk by chunk where chdb can (SELECTs in row
 * formats); everything else runs whole.
 */
import { mkdirSync } from 'node:fs'
import { unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Session, type StreamChunk } from 'chdb'
import { fromChdb } from './errors.js'
import { sqlString } from './request-params.js'

export interface Summary {
  read_rows: number
  read_bytes: number
  written_rows: number
  written_bytes: number
  result_rows: number
  result_bytes: number
  elapsed_ns: number
}

export type Outcome =
  | { kind: 'whole'; bytes: Uint8Array; summary: Summary }
  | {
      kind: 'stream'
      /** The first chunk, already computed: errors before any output surface as an exception with its status. */
      first: Uint8Array
      /** The rest, one chunk at a time; an error here comes after output was sent. */
      rest: AsyncIterator<StreamChunk>
      summary: Summary
      /** Stops the query (client gone) and releases the session. */
      cancel(): void
    }

export interface Run {
  /** SET/USE statements run first, on the request's session. */
  setup: string[]
  sql: string
  /** The output format when the statement names none. */
  format: string
  stream: boolean
  /**
   * An INSERT's data, passed to the engine as a file (`FROM INFILE`), byte for byte, binary formats too;
   * `before` and `after` are the statement around the place `FROM INFILE '…'` goes.
   */
  insert?: { data: Buffer; before: string; after: string }
}

const emptySummary = (): Summary => ({ read_rows: 0, read_bytes: 0, written_rows: 0, written_bytes: 0, result_rows: 0, result_bytes: 0, elapsed_ns: 0 })

export class ChdbExecutor {
  private seq = 0

  /** `path`: the data path of the process's chdb store; `insertDir`: where INSERT data waits for the engine. */
  constructor(
    private readonly path: string,
    private readonly insertDir: string,
  ) {
    mkdirSync(insertDir, { recursive: true })
  }

  async run(r: Run): Promise<Outcome> {
    const session = new Session(this.path)
    let owned = true
    const t0 = process.hrtime.bigint()
    try {
      if (r.setup.length > 0) await session.queryAsync(r.setup.join(';\n'), { format: 'TSV' }).catch(rethrow)
      if (r.insert) return { kind: 'whole', bytes: new Uint8Array(0), summary: await this.insert(session, r.insert, t0) }
      if (!r.stream) {
        const res = await session.queryAsync(r.sql, { format: r.format }).catch(rethrow)
        const bytes = res.bytes()
        const summary = { ...emptySummary(), read_rows: res.rowsRead, read_bytes: res.bytesRead, result_bytes: bytes.byteLength, elapsed_ns: Math.round(res.elapsed * 1e9) }
        return { kind: 'whole', bytes, summary }
      }
      const stream = session.queryStream(r.sql, { format: r.format })
      const it = stream[Symbol.asyncIterator]()
      const first = await it.next().catch(rethrow)
      const summary = emptySummary()
      if (first.done) {
        return { kind: 'whole', bytes: new Uint8Array(0), summary: { ...summary, elapsed_ns: Number(process.hrtime.bigint() - t0) } }
      }
      summary.result_rows = first.value.numRows
      summary.result_bytes = first.value.numBytes
      owned = false
      const release = () => {
        stream.cancel()
        session.close()
      }
      const rest: AsyncIterator<StreamChunk> = {
        next: async () => {
          try {
            const n = await it.next()
            if (n.done) release()
            return n
          } catch (err) {
            release()
            throw fromChdb(err)
          }
        },
      }
      return { kind: 'stream', first: first.value.raw(), rest, summary, cancel: release }
    } finally {
      // A stream keeps its session until it ends or is cancelled; everything else is done here.
      if (owned) session.close()
    }
  }

  private async insert(session: Session, insert: NonNullable<Run['insert']>, t0: bigint): Promise<Summary> {
    const summary = emptySummary()
    // An INSERT with no rows stores nothing, as a server answers an empty body.
    if (insert.data.every((b) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09)) return summary
    const file = join(this.insertDir, `http-${process.pid}-${++this.seq}.data`)
    await writeFile(file, insert.data)
    try {
      // The path is ours; a literal because FROM INFILE takes no query parameter.
      const statement = `${insert.before}FROM INFILE ${sqlString(file)} ${insert.after}`
      const res = await session.queryAsync(statement, { format: 'TSV' }).catch(rethrow)
      return { ...summary, read_rows: res.rowsRead, read_bytes: res.bytesRead, written_rows: res.rowsRead, written_bytes: insert.data.byteLength, elapsed_ns: Number(process.hrtime.bigint() - t0) }
    } finally {
      await unlink(file).catch(() => {})
    }
  }
}

function rethrow(err: unknown): never {
  throw fromChdb(err)
}
