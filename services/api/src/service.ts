/** Runs the read API on its port over adapters owned by the caller (main.ts or the all-in-one process). */
import { pipelineNamespace } from '@svc/shared/bus/consumer-lag'
import type { Bus } from '@svc/shared/bus/types'
import type { Cache } from '@svc/shared/cache/types'
import { scryptParamsFrom, type Config } from '@svc/shared/config'
import { passwordHasher } from '@svc/shared/control/passwords'
import type { ControlWriter } from '@svc/shared/control/control-plane'
import { jwtSecretFor, masterKeyFor } from '@svc/shared/control/service-secrets'
import { listen } from '@svc/shared/http/serve'
import type { Logger } from '@svc/shared/log'
import type { Store } from '@svc/shared/store/types'
import { ensureConsoleBuilt } from '@svc/console/build'
import { createApiApp } from './app.js'
import { loginLimitsFrom } from './login-throttle.js'

export interface ApiDeps {
  store: Store
  control: ControlWriter
  cache: Cache
  config: Config
  log: Logger
  /** Producer for alignment document uploads (optional: without it uploads answer 503). */
  bus?: Bus
}

export async function startApi(deps: ApiDeps): Promise<{ port: number; close(): Promise<void> }> {
  const { config, log } = deps
  const app = createApiApp({
    store: deps.store,
    cache: deps.cache,
    control: deps.control,
    jwtSecret: await jwtSecretFor(config, deps.cache, log),
    jwtTtlSeconds: config.SVC_JWT_TTL_SECONDS,
    invitationTtlHours: config.SVC_INVITATION_TTL_HOURS,
    passwords: passwordHasher(scryptParamsFrom(config)),
    loginLimits: loginLimitsFrom(config),
    trustedProxyHops: config.SVC_TRUSTED_PROXY_HOPS,
    defaultRetentionHours: config.SVC_DEFAULT_RETENTION_HOURS,
    defaultCostProvider: config.SVC_DEFAULT_COST_PROVIDER,
    driftBaselineDays: config.SVC_DRIFT_BASELINE_DAYS,
    engineStallMs: config.SVC_ENGINE_STALL_MS,
    pipelineNamespace: pipelineNamespace(config),
    masterKey: await masterKeyFor(config, deps.cache, log),
    bus: deps.bus,
    alignmentMaxDocBytes: config.SVC_ALIGNMENT_MAX_DOC_BYTES,
    maxBodyBytes: config.SVC_API_MAX_BODY_BYTES,
    egressAllowPrivate: config.SVC_EGRESS_ALLOW_PRIVATE,
    // Built now when missing or older than its sources (a pull since the last start), in a fraction of a second.
    consoleDir: await ensureConsoleBuilt(log),
    log,
  })
  const server = await listen(app, { host: config.SVC_HOST, port: config.SVC_API_PORT, log, name: 'api' })
  return { port: server.port, close: () => server.close() }
}
