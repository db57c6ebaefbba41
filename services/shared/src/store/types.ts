/**
 * Store: ClickHouse through @clickhouse/client in both modes. The only difference
 * between modes is the connection (HTTP to a server, or chdb in process), so the
 * SQL, the migrations and the queries are the same code everywhere.
 *
 * Every statement takes its values as {name:Type} query parameters; nothing is
 * spliced into SQL text.
 */
import type { ClusterTarget } from './cluster.js'
import type { EncodedRows, RowEncoding } from './row-binary.js'

export type QueryParams = Record<string, unknown>

export interface QueryOptions {
  /** Shows up as log_comment in system.query_log so analysts can see the caller. */
  tag?: string
  settings?: Record<string, string | number | boolean>
}

export interface Store {
  readonly kind: 'server' | 'chdb'
  /** Set when the tables live on a cluster (CLICKHOUSE_CLUSTER): migrations are rendered for it (store/cluster.ts). */
  readonly cluster?: ClusterTarget
  query<Row = Record<string, unknown>>(sql: string, params?: QueryParams, opts?: QueryOptions): Promise<Row[]>
  command(sql: string, params?: QueryParams, opts?: QueryOptions): Promise<void>
  insert<Row extends Record<string, unknown>>(table: string, rows: Row[], opts?: QueryOptions): Promise<void>
  /** How `columns` of `table` are written as RowBinary (its own column types), or null when one has no binary form: for rows encoded as they are made (EncodedRows). */
  rowEncoding(table: string, columns: readonly string[]): Promise<RowEncoding | null>
  /** Rows encoded beforehand (with one rowEncoding of this table), in one insert. */
  insertEncoded(table: string, parts: readonly EncodedRows[], opts?: QueryOptions): Promise<void>
  close(): Promise<void>
}
