/** Standalone ingest process: wiring only. */
import { createBus, topicSpecsFor } from '@svc/shared/bus/index'
import { createCache } from '@svc/shared/cache/index'
import { ConfigError, loadConfig } from '@svc/shared/config'
import { ControlPlane } from '@svc/shared/control/control-plane'
import { createLogger } from '@svc/shared/log'
import { startIngest } from './service.js'

try {
  const config = loadConfig()
  const log = createLogger({ level: config.LOG_LEVEL, name: 'ingest' })
  const bus = await createBus(config, log)
  await bus.ensureTopics(topicSpecsFor(config))
  const cache = await createCache(config, log)
  const control = await ControlPlane.start(bus, log)
  const ingest = await startIngest({ bus, control, cache, config, log })

  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, async () => {
      log.info({ signal }, 'shutting down')
      await ingest.close() // stop accepting, drain in-flight produces
      await control.close()
      await Promise.all([bus.close(), cache.close()])
      process.exit(0)
    })
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(err.message + '\n')
    process.exit(2)
  }
  throw err
}
