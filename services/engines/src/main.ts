import { createBus, topicSpecsFor } from '@svc/shared/bus/index'
import { createCache } from '@svc/shared/cache/index'
import { loadConfig } from '@svc/shared/config'
import { ControlPlane } from '@svc/shared/control/control-plane'
import { listen } from '@svc/shared/http/serve'
import { createLogger } from '@svc/shared/log'
import { metricsApp, PIPELINE_LAG, registerConsumerLag } from '@svc/shared/metrics'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import { startEngines } from './service.js'

const config = loadConfig()
const log = createLogger({ level: config.LOG_LEVEL, name: 'engines' })
const bus = await createBus(config, log)
await bus.ensureTopics(topicSpecsFor(config))
const store = await createStore(config, log)
await migrate(store, log)
const cache = await createCache(config, log)
const control = await ControlPlane.start(bus, log)
const engines = await startEngines({ bus, store, control, cache, config, log })
registerConsumerLag(bus, PIPELINE_LAG)
const metrics = await listen(metricsApp(), { host: config.SVC_HOST, port: config.SVC_METRICS_PORT, log, name: 'engines-metrics' })

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, async () => {
    log.info({ signal }, 'shutting down')
    await engines.close()
    await metrics.close()
    await control.close()
    await bus.close()
    await store.close()
    await cache.close()
    process.exit(0)
  })
