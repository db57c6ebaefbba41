/** Standalone read-API process: wiring only. */
import { createBus, topicSpecsFor } from '@svc/shared/bus/index'
import { createCache } from '@svc/shared/cache/index'
import { ConfigError, loadConfig } from '@svc/shared/config'
import { ControlPlane } from '@svc/shared/control/control-plane'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import { startApi } from './service.js'

try {
  const config = loadConfig()
  const log = createLogger({ level: config.LOG_LEVEL, name: 'api' })
  const bus = await createBus(config, log)
  await bus.ensureTopics(topicSpecsFor(config))
  const store = await createStore(config, log)
  await migrate(store, log)
  const cache = await createCache(config, log)
  const control = await ControlPlane.start(bus, log)
  const api = await startApi({ store, control, cache, config, log })

  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, async () => {
      log.info({ signal }, 'shutting down')
      await api.close()
      await control.close()
      await Promise.all([bus.close(), store.close(), cache.close()])
      process.exit(0)
    })
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(err.message + '\n')
    process.exit(2)
  }
  throw err
}
