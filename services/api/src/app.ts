/**
 * The read API as a Hono app built from its dependencies, so tests drive it with
 * app.request() and the standalone and all-in-one processes share it.
 */
import { Hono } from 'hono'
import type { Bus } from '@svc/shared/bus/types'
import type { ControlWriter } from '@svc/shared/control/control-plane'
import type { Cache } from '@svc/shared/cache/types'
import type { MasterKey } from '@svc/shared/control/envelope'
import { keyUsageRecorder } from '@svc/shared/control/key-usage'
import { passwordHasher, type PasswordHasher } from '@svc/shared/control/passwords'
import { loadConfig, scryptParamsFrom } from '@svc/shared/config'
import { jsonErrorHandler, jsonNotFound } from '@svc/shared/http/errors'
import { metricsHandler, requestMetrics } from '@svc/shared/http/request-metrics'
import type { Logger } from '@svc/shared/log'
import { processRegistry } from '@svc/shared/metrics'
import type { Store } from '@svc/shared/store/types'
import { ROUTES } from './access.js'
import { authenticate } from './middleware/auth.js'
import { bodyLimits } from './middleware/body-limit.js'
import { requestId } from './middleware/request-id.js'
import { requestLog } from './middleware/request-log.js'
import { meRoutes } from './routes/auth.js'
import { loginRoutes } from './routes/login.js'
import { loginLimitsFrom, type LoginLimits } from './login-throttle.js'
import { invitationRoutes } from './routes/invitations.js'
import { apiKeyRoutes } from './routes/api-keys.js'
import { budgetRoutes } from './routes/budgets.js'
import { credentialRoutes } from './routes/credentials.js'
import { retentionRoutes } from './routes/retention.js'
import { settingRoutes } from './routes/settings.js'
import { orgRoutes } from './routes/orgs.js'
import { driftRoutes } from './routes/drift.js'
import { healthRoutes } from './routes/health.js'
import { alignmentRoutes, DEFAULT_MAX_DOC_BYTES, MULTIPART_OVERHEAD_BYTES } from './routes/alignment.js'
import { engineOutputRoutes } from './routes/engine-outputs.js'
import { traceRoutes } from './routes/traces.js'
import { usageRoutes } from './routes/usage.js'
import { codingAgentRoutes } from './routes/coding-agent.js'
import { workspaceRoutes } from './routes/workspaces.js'
import { openApiRoutes } from './openapi/routes.js'
import { consoleStatic } from './routes/console.js'

export interface ApiAppDeps {
  store: Store
  /** Shared with ingest: API keys' last use. */
  cache: Cache
  control: ControlWriter
  jwtSecret: string
  jwtTtlSeconds: number
  defaultRetentionHours: number
  /** effective_provider of workspaces without a cost_provider (SVC_DEFAULT_COST_PROVIDER). */
  defaultCostProvider: string
  /** SVC_DRIFT_BASELINE_DAYS: the baseline window drift compares the last day with. */
  driftBaselineDays: number
  /** Ingestion health: jobs this old without a successful run since mark an engine stalled. */
  engineStallMs: number
  /** pipelineNamespace(config): where ingest publishes its admission figures in the cache (ingestion health's backpressure). */
  pipelineNamespace?: string
  /** Seals LLM and search API keys (SVC_MASTER_KEY). */
  masterKey: MasterKey
  /** Producer for uploads (alignment documents); without it POST .../alignment/docs answers 503. */
  bus?: Bus
  /** SVC_ALIGNMENT_MAX_DOC_BYTES (default 10 MiB). */
  alignmentMaxDocBytes?: number
  /** SVC_API_MAX_BODY_BYTES: the largest request body of every other route (default 1 MiB). */
  maxBodyBytes?: number
  /** SVC_EGRESS_ALLOW_PRIVATE: an LLM api_base may name a private or loopback address (default false). */
  egressAllowPrivate?: boolean
  /** SVC_INVITATION_TTL_HOURS: how long an invitation to an organization can be redeemed (default 168). */
  invitationTtlHours?: number
  /** Password hashing at SVC_PASSWORD_SCRYPT_N (the default cost otherwise). */
  passwords?: PasswordHasher
  /** SVC_LOGIN_*: login rate limits (the defaults otherwise). */
  loginLimits?: LoginLimits
  /** SVC_TRUSTED_PROXY_HOPS (default 0: the socket's address is the client's). */
  trustedProxyHops?: number
  /** The web console's build (services/console/dist), served at / and /o/...; without it those paths answer 503. */
  consoleDir?: string | null
  log: Logger
}

// What an omitted option falls back to: the configuration's own defaults.
const CONFIG_DEFAULTS = loadConfig({})

export function createApiApp(deps: ApiAppDeps): Hono {
  const { store, jwtSecret } = deps
  const state = deps.control.state
  const log = deps.log.child({ component: 'api' })
  const app = new Hono()
  app.use(requestId())
  app.use(requestLog(log))
  const metrics = requestMetrics('svc_api_request_duration_seconds', 'Read API request duration, by route pattern and status')
  app.use(metrics.observe)
  app.get('/health', (c) => c.json({ status: 'ok' }))
  app.get('/metrics', metricsHandler(metrics.registry, processRegistry))
  // The console's page and files: GET only, before the body limits and authentication (they are public files).
  app.use(consoleStatic(deps.consoleDir ?? null))
  const maxDocBytes = deps.alignmentMaxDocBytes ?? DEFAULT_MAX_DOC_BYTES
  // Before login and authentication: an unauthenticated caller must not make the process read a huge body either.
  app.use(bodyLimits({ maxBytes: deps.maxBodyBytes ?? 1024 * 1024, upload: { route: ROUTES.uploadAlignmentDoc, maxBytes: maxDocBytes + MULTIPART_OVERHEAD_BYTES } }))
  const passwords = deps.passwords ?? passwordHasher(scryptParamsFrom(CONFIG_DEFAULTS))
  app.route(
    '/',
    loginRoutes({
      control: deps.control,
      cache: deps.cache,
      jwtSecret,
      ttlSeconds: deps.jwtTtlSeconds,
      passwords,
      limits: deps.loginLimits ?? loginLimitsFrom(CONFIG_DEFAULTS),
      trustedProxyHops: deps.trustedProxyHops ?? CONFIG_DEFAULTS.SVC_TRUSTED_PROXY_HOPS,
      log,
    }),
  )
  app.route('/', invitationRoutes({ control: deps.control, jwtSecret, hashPassword: (pw) => passwords.hash(pw) }))
  app.use('/v1/*', authenticate(state, jwtSecret, keyUsageRecorder(deps.cache), deps.trustedProxyHops ?? CONFIG_DEFAULTS.SVC_TRUSTED_PROXY_HOPS))
  app.route('/', meRoutes(state))
  app.route('/', orgRoutes(deps.control, { invitationTtlHours: deps.invitationTtlHours ?? 168 }))
  app.route('/', workspaceRoutes(deps.control))
  app.route('/', apiKeyRoutes(deps.control, deps.cache))
  app.route('/', settingRoutes(deps.control, { defaultCostProvider: deps.defaultCostProvider }))
  app.route('/', credentialRoutes(deps.control, deps.masterKey, { egressAllowPrivate: deps.egressAllowPrivate ?? false }))
  app.route('/', budgetRoutes(deps.control, store))
  app.route('/', retentionRoutes(deps.control, { store, master: deps.masterKey, defaultRetentionHours: deps.defaultRetentionHours }))
  app.route('/', usageRoutes(store, state, { defaultRetentionHours: deps.defaultRetentionHours }))
  app.route('/', healthRoutes(store, state, deps.cache, { stallAfterMs: deps.engineStallMs, pipelineNamespace: deps.pipelineNamespace ?? '' }))
  app.route('/', driftRoutes(store, state, { baselineDays: deps.driftBaselineDays }))
  app.route('/', traceRoutes({ store, state, defaultRetentionHours: deps.defaultRetentionHours }))
  app.route('/', engineOutputRoutes({ store, state, defaultRetentionHours: deps.defaultRetentionHours }))
  app.route('/', alignmentRoutes({ store, control: deps.control, defaultRetentionHours: deps.defaultRetentionHours, bus: deps.bus, maxDocBytes }))
  app.route('/', codingAgentRoutes(store, state))
  // Public, like /health: outside /v1/*, where authenticate() runs.
  app.route('/', openApiRoutes())
  app.onError(jsonErrorHandler(log))
  app.notFound(jsonNotFound)
  return app
}
