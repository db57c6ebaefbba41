/**
 * `pnpm start:clickhouse`: the embedded store alone, served over ClickHouse's HTTP
 * interface, so separate processes can share it through CLICKHOUSE_URL (the
 * multi-process shape on one machine). Wiring only.
 */
import { ConfigError, loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { startClickhouseHttp } from './service.js'

try {
  const config = loadConfig()
  const log = createLogger({ level: config.LOG_LEVEL, name: 'clickhouse-http' })
  if (config.CLICKHOUSE_URL) throw new ConfigError('pnpm start:clickhouse holds the embedded store: unset CLICKHOUSE_URL here (set it in the processes that use this one)')
  const store = await createStore(config, log)
  const http = await startClickhouseHttp({ config, log, store })
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => {
      log.info({ signal }, 'shutting down')
      void http
        .close()
        .then(() => store.close())
        .then(
          () => process.exit(0),
          (err: unknown) => {
            log.error({ err }, 'shutdown failed')
            process.exit(1)
          },
        )
    })
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(err.message + '\n')
    process.exit(2)
  }
  throw err
}
