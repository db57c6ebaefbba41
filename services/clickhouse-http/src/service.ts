/**
 * Starts ClickHouse's HTTP interface over this process's embedded store: the
 * all-in-one process serves it beside everything else, `pnpm start:clickhouse`
 * serves nothing else (the store of the multi-process shape). The store must be
 * chdb, opened by this process: its sessions are connections to the same engine.
 */
import { createServer } from 'node:http'
import { Session } from 'chdb'
import type { Config } from '@svc/shared/config'
import type { Logger } from '@svc/shared/log'
import { chdbDataPath, chdbInsertDir } from '@svc/shared/store/index'
import type { Store } from '@svc/shared/store/types'
import { ChdbExecutor } from './executor.js'
import { createHandler } from './handler.js'
import { loadUsers } from './users.js'

export interface ClickhouseHttp {
  port: number
  close(): Promise<void>
}

/** What the engine says about itself, for the response headers and the parser's limit. */
async function serverInfo(path: string): Promise<{ version: string; timezone: string; maxQuerySize: number }> {
  const s = new Session(path)
  try {
    const res = await s.queryAsync("SELECT version() AS version, timezone() AS timezone, toUInt64(getSetting('max_query_size')) AS max_query_size", { format: 'JSONEachRow' })
    const row = res.json<{ version: string; timezone: string; max_query_size: string | number }>()
    return { version: row.version, timezone: row.timezone, maxQuerySize: Number(row.max_query_size) }
  } finally {
    s.close()
  }
}

export async function startClickhouseHttp(deps: { config: Config; log: Logger; store: Store }): Promise<ClickhouseHttp> {
  const { config } = deps
  const log = deps.log.child({ component: 'clickhouse-http' })
  if (deps.store.kind !== 'chdb') throw new Error('the ClickHouse HTTP interface serves the embedded store only (CLICKHOUSE_URL names a server of its own)')
  const path = chdbDataPath(config)
  const users = loadUsers(config)
  if (users.file && !config.SVC_QUIET_BOOTSTRAP) {
    // Printed once, on the start that generated them; the file keeps them.
    const lines = Object.entries(users.generated).map(([name, password]) => `    ${name.padEnd(8)} ${password}`)
    process.stdout.write(`\n  ClickHouse HTTP interface: generated passwords (also in ${users.file}, mode 0600, under "clickhouse")\n${lines.join('\n')}\n\n`)
  }
  const handler = createHandler({
    executor: new ChdbExecutor(path, chdbInsertDir(config)),
    users: users.users,
    log,
    server: await serverInfo(path),
    maxBodyBytes: config.SVC_CLICKHOUSE_HTTP_MAX_BODY_BYTES,
    analystLimits: [
      ['max_execution_time', config.SVC_CLICKHOUSE_ANALYST_MAX_EXECUTION_TIME],
      ['max_result_rows', config.SVC_CLICKHOUSE_ANALYST_MAX_RESULT_ROWS],
      ['result_overflow_mode', config.SVC_CLICKHOUSE_ANALYST_RESULT_OVERFLOW_MODE],
      ['readonly', 1],
    ],
    concurrency: { svc: config.SVC_CLICKHOUSE_SVC_MAX_CONCURRENT_QUERIES, analyst: config.SVC_CLICKHOUSE_ANALYST_MAX_CONCURRENT_QUERIES },
    credentialsHint: `The users are svc and analyst; their passwords are SVC_CLICKHOUSE_SVC_PASSWORD and SVC_CLICKHOUSE_ANALYST_PASSWORD, or, when those are unset, "clickhouse" in init-credentials.json in the service's data directory.`,
  })
  // A GET's query is in its URL: allow ClickHouse's 1 MiB (http_max_uri_size) rather than Node's 16 KiB of headers.
  const server = createServer({ maxHeaderSize: 1024 * 1024 + 64 * 1024 }, handler)
  server.keepAliveTimeout = 10_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.SVC_CLICKHOUSE_HTTP_PORT, config.SVC_CLICKHOUSE_HTTP_HOST, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : config.SVC_CLICKHOUSE_HTTP_PORT
  log.info({ host: config.SVC_CLICKHOUSE_HTTP_HOST, port }, 'ClickHouse HTTP interface listening')
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
