/**
 * The ingest HTTP app, built from its dependencies and nothing else, so tests drive
 * it with app.request() and the standalone and all-in-one processes share it.
 */
import { Hono } from 'hono'
import type { Bus } from '@svc/shared/bus/types'
import type { Cache } from '@svc/shared/cache/types'
import type { Config } from '@svc/shared/config'
import { keyUsageRecorder } from '@svc/shared/control/key-usage'
import type { ControlState } from '@svc/shared/control/state'
import { jsonErrorHandler, jsonNotFound } from '@svc/shared/http/errors'
import { metricsHandler } from '@svc/shared/http/request-metrics'
import type { Logger } from '@svc/shared/log'
import { PIPELINE_LAG, processRegistry, registerConsumerLag } from '@svc/shared/metrics'
import { pipelineNamespace } from '@svc/shared/bus/consumer-lag'
import { Admission } from './admission.js'
import { createIngestMetrics, ingestRegistry, type IngestMetrics } from './metrics.js'
import { InflightBudget } from './middleware/backpressure.js'
import { inlinePrepare, sharedThreadPool } from './prepare-pool.js'
import type { IngestRouteDeps } from './routes/accept.js'
import { codingAgentRoutes } from './routes/coding-agent.js'
import { otlpRoutes } from './routes/otlp.js'
import { workspaceRoutes } from './routes/workspace.js'

export interface IngestDeps {
  bus: Bus
  control: { state: ControlState }
  config: Config
  log: Logger
  /** Where API keys' last use is recorded (GET api-keys shows it); none in tests that do not care. */
  cache?: Cache
  /** How long a request waits for the bus to acknowledge before answering 503 (default 30 s). */
  produceTimeoutMs?: number
}

export interface IngestApp {
  app: Hono
  metrics: IngestMetrics
  budget: InflightBudget
  /** What every ingest transport runs requests with (the gRPC server shares it, budget and metrics included). */
  routeDeps: IngestRouteDeps
  /** Refuses new trace requests (503) and waits up to `timeoutMs` for admitted ones to become durable. */
  drain(timeoutMs: number): Promise<boolean>
  /** Admission against the pipeline's lag and the log's disk budget (stop it with the service). */
  admission: Admission
}

export const DEFAULT_PRODUCE_TIMEOUT_MS = 30_000

export function createIngestApp(deps: IngestDeps): IngestApp {
  const { bus, control, config } = deps
  const log = deps.log.child({ component: 'ingest' })
  const metrics = createIngestMetrics()
  const budget = new InflightBudget(config.SVC_INGEST_MAX_INFLIGHT_BYTES, metrics)
  const onKeyUsed = deps.cache ? keyUsageRecorder(deps.cache) : undefined

  const app = new Hono()
  app.get('/health', (c) => c.json({ status: 'ok' }))
  const { registry, observe } = ingestRegistry(metrics, () => budget.inflightBytes)
  // Lag of the groups that consume what ingest writes (the assembler, the dead-letter sink).
  registerConsumerLag(bus, PIPELINE_LAG, registry)
  const admission = new Admission({ bus, cache: deps.cache, namespace: pipelineNamespace(config), maxLagSeconds: config.SVC_MAX_LAG_SECONDS, metrics, log })
  admission.register(registry)
  app.use('/v1/*', observe)
  app.get('/metrics', metricsHandler(registry, processRegistry))
  const routeDeps: IngestRouteDeps = {
    bus,
    state: control.state,
    budget,
    metrics,
    log,
    maxBodyBytes: config.SVC_INGEST_MAX_BODY_BYTES,
    produceTimeoutMs: deps.produceTimeoutMs ?? DEFAULT_PRODUCE_TIMEOUT_MS,
    prepare: config.SVC_INGEST_THREADS > 0 ? sharedThreadPool(config.SVC_INGEST_THREADS, log) : inlinePrepare,
    protobuf: config.SVC_INGEST_PROTOBUF,
    admission,
    onKeyUsed,
  }
  app.route('/', otlpRoutes(routeDeps))
  app.route('/', codingAgentRoutes(routeDeps))
  app.route('/', workspaceRoutes(control.state, onKeyUsed))
  app.onError(jsonErrorHandler(log))
  app.notFound(jsonNotFound)
  return { app, metrics, budget, routeDeps, admission, drain: (timeoutMs) => budget.drain(timeoutMs) }
}
