import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { createClient, type ClickHouseSettings } from '@clickhouse/client'
import { createChdbConnection } from 'chdb/connection'
import type { Config } from '../config.js'
import { redactUrl, type Logger } from '../log.js'
import { clickhouseStore } from './client.js'
import { clusterLiteral } from './cluster.js'
import type { Store } from './types.js'

export type { Store } from './types.js'

type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>

/**
 * Settings sent with every statement in both modes, so rows come back in the same
 * shape whichever backend answers: 64-bit integers as JSON numbers (the queries
 * select nanosecond timestamps as strings explicitly), and an INSERT returns only
 * once its rows are stored and visible, which the assembler's at-least-once offset
 * commits rely on.
 *
 * optimize_on_insert off: every table is a Replacing- or AggregatingMergeTree whose
 * copies of a key collapse at merge time, and every read already collapses what the
 * merges have not reached yet (copies in other parts), so collapsing the copies within
 * one insert as well is work done twice. Measured on bench:ingest's rows inserted
 * into spans_v1 under chdb with every view attached (three runs each, alternated, a
 * fresh process and data directory per run): 18.2 instead of 19.3 µs of CPU a row in
 * inserts of 13,000 rows, 12.7 instead of 14.1 in inserts of 40,000.
 */
export const STORE_SETTINGS: ClickHouseSettings = {
  output_format_json_quote_64bit_integers: 0,
  async_insert: 0,
  wait_for_async_insert: 1,
  optimize_on_insert: 0,
}

/** The embedded store's data directory (chdb allows one per process; the ClickHouse HTTP interface opens its sessions on it). */
export const chdbDataPath = (config: Config) => join(config.SVC_DATA_DIR, 'clickhouse')
/** Where insert batches wait for chdb as files (`INSERT ... FROM INFILE`); emptied when the store opens. */
export const chdbInsertDir = (config: Config) => join(config.SVC_DATA_DIR, 'clickhouse-inserts')

/**
 * The store for this process: a ClickHouse server when CLICKHOUSE_URL is set,
 * otherwise chdb in process with its data under <SVC_DATA_DIR>/clickhouse (chdb
 * allows one data directory per process).
 */
export async function createStore(config: Config, log: Logger): Promise<Store> {
  const storeLog = log.child({ component: 'store' })
  if (config.CLICKHOUSE_URL) {
    const auth = { url: config.CLICKHOUSE_URL, username: config.CLICKHOUSE_USER, password: config.CLICKHOUSE_PASSWORD }
    const cluster = config.CLICKHOUSE_CLUSTER ? { cluster: config.CLICKHOUSE_CLUSTER, database: config.CLICKHOUSE_DATABASE } : undefined
    // On a cluster an insert into a Distributed table must return only once its shards
    // stored the rows (commit after flush), not once they are queued on this node.
    const settings: ClickHouseSettings = cluster ? { ...STORE_SETTINGS, distributed_foreground_insert: 1 } : STORE_SETTINGS
    // The database must exist before a client bound to it can run anything.
    const bootstrap = createClient({ ...auth, clickhouse_settings: settings })
    try {
      // ON CLUSTER takes no query parameter: the operator's cluster name goes in as a quoted literal.
      await bootstrap.command({
        query: `CREATE DATABASE IF NOT EXISTS {db:Identifier}${cluster ? ` ON CLUSTER ${clusterLiteral(cluster.cluster)}` : ''}`,
        query_params: { db: config.CLICKHOUSE_DATABASE },
      })
    } finally {
      await bootstrap.close()
    }
    const client = createClient({ ...auth, database: config.CLICKHOUSE_DATABASE, clickhouse_settings: settings })
    storeLog.info({ url: redactUrl(config.CLICKHOUSE_URL), database: config.CLICKHOUSE_DATABASE, cluster: cluster?.cluster }, 'store: ClickHouse server')
    return clickhouseStore(client, 'server', storeLog, { cluster })
  }
  const path = chdbDataPath(config)
  mkdirSync(path, { recursive: true })
  // The data directory isolates an embedded deployment, so CLICKHOUSE_DATABASE is not used here.
  // chdb declares the Connection contract from @clickhouse/client-common 1.23.0 while
  // @clickhouse/client 1.23.1 bundles its own copy; the shapes match, the type identities do not.
  const chdbClient = () => createClient({ connection: createChdbConnection({ path }) as unknown as ClientConnection, clickhouse_settings: STORE_SETTINGS })
  const client = chdbClient()
  storeLog.info({ path }, 'store: chdb in process')
  // Insert batches pass through files here (see clickhouseStore); leftovers of a crash are removed at start.
  const insertDir = chdbInsertDir(config)
  rmSync(insertDir, { recursive: true, force: true })
  // A connection of their own for inserts (store/insert.ts): chdb runs one statement at a time per connection,
  // so a long insert would otherwise hold up every read behind it.
  return clickhouseStore(client, 'chdb', storeLog, { insertDir, insertClient: chdbClient() })
}
