import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import type { Logger } from '../log.js'
import { insertRows, insertSeconds } from '../metrics.js'
import type { ClusterTarget } from './cluster.js'
import { createInsert } from './insert.js'
import type { EncodedRows } from './row-binary.js'
import type { QueryOptions, QueryParams, Store } from './types.js'

function settingsOf(opts: QueryOptions | undefined): ClickHouseSettings | undefined {
  if (!opts?.settings && !opts?.tag) return undefined
  // log_comment lands in system.query_log, so analysts can tell which caller ran a query.
  return { ...(opts.settings as ClickHouseSettings | undefined), ...(opts.tag ? { log_comment: opts.tag } : {}) }
}

/**
 * A Store over @clickhouse/client. The same code serves a ClickHouse server over
 * HTTP and chdb in process: only the client's connection differs.
 *
 * Under chdb, per-call settings are applied with SET on the one session and so
 * outlive the call; pass only settings that are harmless to keep (log_comment is).
 */
export function clickhouseStore(client: ClickHouseClient, kind: 'server' | 'chdb', log: Logger, opts: { insertDir?: string; cluster?: ClusterTarget; insertClient?: ClickHouseClient } = {}): Store {
  let closed = false
  const insert = createInsert(client, kind === 'chdb' ? { dir: opts.insertDir, client: opts.insertClient } : {})
  const fail = (op: string, sql: string, opts: QueryOptions | undefined, err: unknown): never => {
    log.debug({ err, op, tag: opts?.tag, sql: sql.slice(0, 200) }, 'clickhouse statement failed')
    throw err
  }
  const timed = async (table: string, rows: number, opts: QueryOptions | undefined, run: () => Promise<void>) => {
    const timer = insertSeconds.startTimer({ table })
    insertRows.observe({ table }, rows)
    try {
      await run()
      timer()
    } catch (err) {
      fail('insert', `INSERT INTO ${table}`, opts, err)
    }
  }
  return {
    kind,
    ...(opts.cluster ? { cluster: opts.cluster } : {}),
    async query<Row = Record<string, unknown>>(sql: string, params?: QueryParams, opts?: QueryOptions): Promise<Row[]> {
      try {
        const rs = await client.query({ query: sql, query_params: params, format: 'JSONEachRow', clickhouse_settings: settingsOf(opts) })
        return await rs.json<Row>()
      } catch (err) {
        return fail('query', sql, opts, err)
      }
    },
    async command(sql: string, params?: QueryParams, opts?: QueryOptions): Promise<void> {
      try {
        await client.command({ query: sql, query_params: params, clickhouse_settings: settingsOf(opts) })
      } catch (err) {
        fail('command', sql, opts, err)
      }
    },
    async insert<Row extends Record<string, unknown>>(table: string, rows: Row[], opts?: QueryOptions): Promise<void> {
      if (rows.length === 0) return
      await timed(table, rows.length, opts, () => insert.rows(table, rows, settingsOf(opts)))
    },
    async insertEncoded(table: string, parts: readonly EncodedRows[], opts?: QueryOptions): Promise<void> {
      const count = parts.reduce((n, p) => n + p.count, 0)
      if (count === 0) return
      await timed(table, count, opts, () => insert.encoded(table, parts.filter((p) => p.count > 0), settingsOf(opts)))
    },
    rowEncoding: (table: string, columns: readonly string[]) => insert.encoding(table, columns),
    async close(): Promise<void> {
      if (closed) return
      closed = true
      await Promise.all([client.close(), opts.insertClient?.close()])
    },
  }
}
