/**
 * What every standalone process's main.ts shares: adapters wired from the
 * environment, one service started on them, /metrics when the service has no HTTP
 * port of its own, and a clean shutdown on SIGTERM/SIGINT (service first, then the
 * control fold, then the adapters). A configuration error exits 2 with its message.
 */
import { pipelineNamespace, publishConsumerLag } from './bus/consumer-lag.js'
import { createBus, topicSpecsFor } from './bus/index.js'
import type { Bus } from './bus/types.js'
import { createCache } from './cache/index.js'
import type { Cache } from './cache/types.js'
import { ConfigError, loadConfig, type Config } from './config.js'
import { ControlPlane } from './control/control-plane.js'
import { listen } from './http/serve.js'
import { createLogger, type Logger } from './log.js'
import { metricsApp, PIPELINE_LAG, registerConsumerLag } from './metrics.js'
import { createStore } from './store/index.js'
import { migrate } from './store/migrate.js'
import type { Store } from './store/types.js'

export interface StandaloneAdapters {
  config: Config
  log: Logger
  bus: Bus
  cache: Cache
  control: ControlPlane
  /** ClickHouse, migrated; opened only by the services that use it. */
  openStore(): Promise<Store>
}

export async function runStandalone(
  name: string,
  opts: { metricsPort?: boolean },
  start: (a: StandaloneAdapters) => Promise<{ close(): Promise<void> }>,
): Promise<void> {
  try {
    const config = loadConfig()
    const log = createLogger({ level: config.LOG_LEVEL, name })
    const bus = await createBus(config, log)
    await bus.ensureTopics(topicSpecsFor(config))
    let store: Store | null = null
    const openStore = async () => {
      if (!store) {
        store = await createStore(config, log)
        await migrate(store, log)
      }
      return store
    }
    const cache = await createCache(config, log)
    // The lag of the consumers this process runs, for ingest's admission and ingestion health.
    const lag = publishConsumerLag(cache, pipelineNamespace(config), (err) => log.warn({ err }, 'could not publish consumer lag'))
    const control = await ControlPlane.start(bus, log)
    const service = await start({ config, log, bus, cache, control, openStore })
    let metrics: { close(): Promise<void> } | null = null
    if (opts.metricsPort) {
      registerConsumerLag(bus, PIPELINE_LAG)
      metrics = await listen(metricsApp(), { host: config.SVC_HOST, port: config.SVC_METRICS_PORT, log, name: `${name}-metrics` })
    }

    const shutdown = async () => {
      await service.close()
      await lag.stop()
      await metrics?.close()
      await control.close()
      await Promise.all([bus.close(), cache.close(), (store as Store | null)?.close()])
    }
    for (const signal of ['SIGTERM', 'SIGINT'] as const)
      process.once(signal, () => {
        log.info({ signal }, 'shutting down')
        // A listener's rejection would escape every handler: log it and exit non-zero.
        void shutdown().then(
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
}
