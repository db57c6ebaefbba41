/**
 * The service's own secrets: the master key that seals organizations' LLM and
 * search keys (api seals, engines open) and the JWT secret of logins (api). The
 * rule, by bus:
 *
 * - Embedded (one process, one data directory): SVC_MASTER_KEY / SVC_JWT_SECRET
 *   when set; else generated once into `<data dir>/master.key` and
 *   `<data dir>/jwt-secret` (mode 0600, beside init-credentials.json), with a warning
 *   at every start that says how to set them.
 * - Kafka (processes that may run anywhere, as several replicas): required. Every
 *   process that uses one must hold the same value, and the only safe way to hand it
 *   to all of them is the operator's. A process without it refuses to start and
 *   says how to generate one. Nothing is ever written to Redis; a plain-text copy an
 *   earlier version kept there stops the start with how to move it into the
 *   environment.
 */
import { join } from 'node:path'
import type { Cache } from '../cache/types.js'
import { ConfigError, type Config } from '../config.js'
import type { Logger } from '../log.js'
import { loadMasterKey, parseMasterKey, type MasterKey } from './envelope.js'
import { loadJwtSecret } from './tokens.js'

interface SecretSpec<T> {
  env: 'SVC_MASTER_KEY' | 'SVC_JWT_SECRET'
  /** File name in the data directory (embedded mode). */
  file: string
  /** Where versions before this one shared a generated secret in Redis, in plain text. */
  legacyCacheKey: string
  /** Which processes need it, for the messages. */
  neededBy: string
  /** What losing or changing it means, for the messages. */
  consequence: string
  fromEnv(value: string): T
  /** The value from the environment, else the data directory's file (created on first use). */
  load(configured: string | undefined, dataDir: string): T
}

const MASTER_KEY: SecretSpec<MasterKey> = {
  env: 'SVC_MASTER_KEY',
  file: 'master.key',
  legacyCacheKey: 'svc:master-key',
  neededBy: 'every api and engines process (and the all-in-one)',
  consequence: 'LLM and search credentials sealed with one key cannot be opened with another',
  fromEnv: parseMasterKey,
  load: loadMasterKey,
}

const JWT_SECRET: SecretSpec<string> = {
  env: 'SVC_JWT_SECRET',
  file: 'jwt-secret',
  legacyCacheKey: 'svc:jwt-secret',
  neededBy: 'every api process (and the all-in-one)',
  consequence: 'a login token signed with one secret is refused by a process holding another',
  fromEnv: (v) => v,
  load: loadJwtSecret,
}

const GENERATE = 'openssl rand -base64 32'

async function serviceSecret<T>(spec: SecretSpec<T>, config: Config, cache: Cache, log: Logger): Promise<T> {
  const configured = config[spec.env]
  if (config.SVC_BUS === 'kafka') {
    // Read only, to tell an operator upgrading from a version that kept it there.
    const legacy = await cache.get(spec.legacyCacheKey)
    if (!configured && legacy !== null)
      throw new ConfigError(
        `${spec.env} is not set, and an earlier version kept a generated ${spec.env} in Redis in plain text (key ${spec.legacyCacheKey}); ` +
          `it is no longer read from there. Move it into the environment of ${spec.neededBy} ` +
          `(${spec.env}="$(redis-cli -u "$REDIS_URL" GET ${spec.legacyCacheKey})"), start them, then delete the copy: ` +
          `redis-cli -u "$REDIS_URL" DEL ${spec.legacyCacheKey}. (${spec.consequence}.)`,
      )
    if (!configured)
      throw new ConfigError(
        `${spec.env} is required when SVC_BUS=kafka: ${spec.neededBy} must hold the same value, which only the operator can give them ` +
          `(${spec.consequence}). Generate one with \`${GENERATE}\`, keep it in your secret store, and set it in the environment of each of them.`,
      )
    if (legacy !== null)
      log.warn(`Redis still holds a plain-text copy of a ${spec.env} from an earlier version; once ${spec.env} is set everywhere, delete it: redis-cli -u "$REDIS_URL" DEL ${spec.legacyCacheKey}`)
    return spec.fromEnv(configured)
  }
  if (configured) return spec.fromEnv(configured)
  const file = join(config.SVC_DATA_DIR, spec.file)
  log.warn(
    `${spec.env} is not set: using the one generated into ${file} (mode 0600) on first start. Keep that file with the data directory ` +
      `(${spec.consequence}). To manage it yourself, set ${spec.env}="$(cat ${file})" (or a new one from \`${GENERATE}\` on a fresh data directory).`,
  )
  return spec.load(undefined, config.SVC_DATA_DIR)
}

/** The master key of stored credentials (envelope.ts). */
export function masterKeyFor(config: Config, cache: Cache, log: Logger): Promise<MasterKey> {
  return serviceSecret(MASTER_KEY, config, cache, log)
}

/** The HMAC secret of login JWTs (tokens.ts). */
export function jwtSecretFor(config: Config, cache: Cache, log: Logger): Promise<string> {
  return serviceSecret(JWT_SECRET, config, cache, log)
}
