import type { Logger } from '@svc/shared/log'
import { startApi } from '@svc/api/service'
import { startAssembler } from '@svc/assembler/service'
import { startClickhouseHttp } from '@svc/clickhouse-http/service'
import { startCodingAgent } from '@svc/coding-agent/service'
import { startEngines } from '@svc/engines/service'
import { startIngest } from '@svc/ingest/service'
import { backgroundLane } from '@svc/shared/background-lane'
import { pipelineNamespace, publishConsumerLag } from '@svc/shared/bus/consumer-lag'
import { createBus, topicSpecsFor } from '@svc/shared/bus/index'
import { createCache } from '@svc/shared/cache/index'
import type { Bus } from '@svc/shared/bus/types'
import type { Config } from '@svc/shared/config'
import { bootstrapIdentity, type GeneratedCredentials } from '@svc/shared/control/bootstrap'
import { ControlPlane } from '@svc/shared/control/control-plane'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import type { Store } from '@svc/shared/store/types'

export interface RunningStack {
  ingestPort: number
  /** OTLP/gRPC ingest, when SVC_INGEST_GRPC_PORT is set. */
  grpcPort: number | null
  apiPort: number
  /** ClickHouse's HTTP interface over the embedded store; null with a ClickHouse server, or when its port was taken. */
  clickhousePort: number | null
  control: ControlPlane
  bus: Bus
  store: Store
  generated: GeneratedCredentials | null
  close(): Promise<void>
}

/**
 * Every service in one process over one set of adapters: the embedded default
 * (`pnpm start`), and also what the tests start in both bus modes. The services are
 * the same ones the distributed deployment runs as separate processes.
 */
export async function startAll(config: Config, log: Logger): Promise<RunningStack> {
  const closers: Array<() => Promise<void>> = []
  const close = async () => {
    for (const c of closers.reverse()) await c().catch((err) => log.error({ err }, 'error while stopping'))
  }
  try {
    const bus = await createBus(config, log)
    closers.push(() => bus.close())
    await bus.ensureTopics(topicSpecsFor(config))
    const store = await createStore(config, log)
    closers.push(() => store.close())
    await migrate(store, log)
    const cache = await createCache(config, log)
    closers.push(() => cache.close())
    // Every consumer's lag to the cache, where ingest's admission and ingestion health read it.
    const lag = publishConsumerLag(cache, pipelineNamespace(config), (err) => log.warn({ err }, 'could not publish consumer lag'))
    closers.push(() => lag.stop())
    const control = await ControlPlane.start(bus, log)
    closers.push(() => control.close())
    const generated = await bootstrapIdentity({ control, cache, config, log })
    const assembler = await startAssembler({ bus, store, control, cache, config, log })
    closers.push(() => assembler.close())
    // Engines (with their results sink) and the coding-agent consumer share one lane that waits while assembly is busy.
    const background = backgroundLane(assembler.busy)
    const engines = await startEngines({ bus, store, control, cache, config, log, background })
    closers.push(() => engines.close())
    const codingAgent = await startCodingAgent({ bus, store, log, background })
    closers.push(() => codingAgent.close())
    const ingest = await startIngest({ bus, control, cache, config, log })
    closers.push(() => ingest.close())
    const api = await startApi({ store, control, cache, config, log, bus })
    closers.push(() => api.close())
    const clickhouse = await startClickhouseInterface(config, log, store)
    if (clickhouse) closers.push(() => clickhouse.close())
    return { ingestPort: ingest.port, grpcPort: ingest.grpcPort, apiPort: api.port, clickhousePort: clickhouse?.port ?? null, control, bus, store, generated, close }
  } catch (err) {
    await close()
    throw err
  }
}

/**
 * The embedded store's ClickHouse interface, for analysts' tools. A taken port (a
 * ClickHouse server of the machine's own on 8123, say) costs only this interface:
 * the service runs on, and the warning says how to move it.
 */
async function startClickhouseInterface(config: Config, log: Logger, store: Store) {
  if (store.kind !== 'chdb') return null
  try {
    return await startClickhouseHttp({ config, log, store })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err
    log.warn(`ClickHouse HTTP interface not started: ${config.SVC_CLICKHOUSE_HTTP_HOST}:${config.SVC_CLICKHOUSE_HTTP_PORT} is in use; set SVC_CLICKHOUSE_HTTP_PORT to another port`)
    return null
  }
}
