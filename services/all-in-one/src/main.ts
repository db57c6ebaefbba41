import { ConfigError, loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { startAll } from './start-all.js'

try {
  const config = loadConfig()
  const log = createLogger({ level: config.LOG_LEVEL, name: 'svc' })
  const stack = await startAll(config, log)
  log.info({ bus: config.SVC_BUS, dataDir: config.SVC_DATA_DIR, ingest: stack.ingestPort, ...(stack.grpcPort === null ? {} : { ingest_grpc: stack.grpcPort }), api: stack.apiPort, ...(stack.clickhousePort === null ? {} : { clickhouse_http: stack.clickhousePort }) }, 'all services running')
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info({ signal }, 'shutting down')
    await stack.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(err.message + '\n')
    process.exit(2)
  }
  throw err
}
