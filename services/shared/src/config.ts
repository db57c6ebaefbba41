import { resolve } from 'node:path'
import { z } from 'zod'
import { DEFAULT_SCRYPT } from './control/secrets.js'

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes')
const port = z.coerce.number().int().min(0).max(65535)
const positiveInt = z.coerce.number().int().positive()
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))

/**
 * Every setting of every service, parsed once from the environment. Names follow
 * the house rule: KAFKA_*, CLICKHOUSE_*, REDIS_*, LOG_LEVEL for infrastructure;
 * SVC_* for the product. docs/configuration in the README lists them.
 */
export const ConfigSchema = z
  .object({
    SVC_BUS: z.enum(['embedded', 'kafka']).default('embedded'),
    SVC_DATA_DIR: z.string().default('./.svc-data'),
    SVC_HOST: z.string().default('0.0.0.0'),
    SVC_INGEST_PORT: port.default(4318),
    SVC_API_PORT: port.default(8080),
    // GET /metrics of processes without an API of their own (the standalone assembler).
    SVC_METRICS_PORT: port.default(9464),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

    KAFKA_BROKERS: optionalString,
    KAFKA_CLIENT_ID: z.string().default('svc'),
    /** Prefix for every topic and consumer group, so environments can share a cluster. */
    KAFKA_TOPIC_PREFIX: z.string().default(''),
    KAFKA_TOPIC_PARTITIONS: positiveInt.default(6),
    KAFKA_REPLICATION_FACTOR: positiveInt.default(1),
    /**
     * Partitions of a new embedded topic, consumed concurrently. Two overlap decoding
     * with inserts; more only add per-batch statements on the one chdb session (at a
     * paced 6,000 spans/s, accept→visible p95 was 0.4 s with 2 and 7 s with 4).
     */
    SVC_EMBEDDED_PARTITIONS: positiveInt.default(2),
    /** Embedded log: segments older than this (and not the active one) are deleted. */
    SVC_EMBEDDED_RETENTION_HOURS: positiveInt.default(24),
    // Embedded log: disk budget of all its segments. Past 80% of it consumed segments go early; at the budget,
    // with what is left unconsumed, ingest answers 503 + Retry-After until the consumers catch up.
    SVC_EMBEDDED_MAX_BYTES: positiveInt.default(10 * 2 ** 30),

    CLICKHOUSE_URL: optionalString,
    CLICKHOUSE_USER: z.string().default('default'),
    CLICKHOUSE_PASSWORD: z.string().default(''),
    CLICKHOUSE_DATABASE: z.string().default('default'),
    /** A server cluster (remote_servers) to create the tables on: Replicated* locals, Distributed tables over them (store/cluster.ts). */
    CLICKHOUSE_CLUSTER: optionalString,
    // ClickHouse's HTTP interface over the embedded store (the all-in-one and `pnpm start:clickhouse`): analysts'
    // tools, and the CLICKHOUSE_URL of every process in the multi-process shape. Loopback unless told otherwise.
    SVC_CLICKHOUSE_HTTP_HOST: z.string().default('127.0.0.1'),
    SVC_CLICKHOUSE_HTTP_PORT: port.default(8123),
    // Passwords of its two users; generated on first start into <data dir>/init-credentials.json when unset.
    SVC_CLICKHOUSE_SVC_PASSWORD: optionalString,
    SVC_CLICKHOUSE_ANALYST_PASSWORD: optionalString,
    // Limits every analyst query runs under (besides readonly=1): seconds, result rows and what passing them does.
    SVC_CLICKHOUSE_ANALYST_MAX_EXECUTION_TIME: positiveInt.default(30),
    SVC_CLICKHOUSE_ANALYST_MAX_RESULT_ROWS: positiveInt.default(1_000_000),
    SVC_CLICKHOUSE_ANALYST_RESULT_OVERFLOW_MODE: z.enum(['throw', 'break']).default('throw'),
    // Queries each user runs at once (others wait): chdb runs them on libuv's pool, which the process shares.
    SVC_CLICKHOUSE_ANALYST_MAX_CONCURRENT_QUERIES: positiveInt.default(2),
    SVC_CLICKHOUSE_SVC_MAX_CONCURRENT_QUERIES: positiveInt.default(4),
    // Largest request body (svc's inserts; after decompression); larger → 413.
    SVC_CLICKHOUSE_HTTP_MAX_BODY_BYTES: positiveInt.default(256 * 1024 * 1024),

    REDIS_URL: optionalString,

    /** Largest accepted ingest body, measured after gzip decompression. */
    SVC_INGEST_MAX_BODY_BYTES: positiveInt.default(16 * 1024 * 1024),
    /** Bytes of accepted-but-not-yet-durable spans before ingest answers 503. */
    SVC_INGEST_MAX_INFLIGHT_BYTES: positiveInt.default(128 * 1024 * 1024),
    // Freshness bound: while the oldest record its consumer has not committed is older than this (spans: the
    // assembler; coding-agent records: their consumer), ingest answers 503 + Retry-After instead of accepting more
    // than the pipeline can land. 0: no bound.
    SVC_MAX_LAG_SECONDS: z.coerce.number().nonnegative().default(30),
    // Worker threads that parse and prepare ingest bodies (services/ingest/src/prepare-pool.ts); 0: on the request's own thread.
    SVC_INGEST_THREADS: z.coerce.number().int().min(0).max(64).default(1),
    // OTLP protobuf over HTTP (application/x-protobuf) on every OTLP path; off, protobuf is answered 415 (the API document's default).
    SVC_INGEST_PROTOBUF: bool.default('false'),
    // OTLP/gRPC ingest on this port (conventionally 4317); unset, no gRPC listener.
    SVC_INGEST_GRPC_PORT: z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), port.optional()),
    /** A trace with no new span for this long is complete and its engine jobs are emitted. */
    SVC_TRACE_QUIET_MS: positiveInt.default(5000),
    SVC_TRACE_MAX_OPEN_SECONDS: positiveInt.default(3600),
    /** The assembler's ClickHouse writer flushes at this many rows or this interval. */
    SVC_ASSEMBLER_BATCH_ROWS: positiveInt.default(20000),
    SVC_ASSEMBLER_FLUSH_MS: positiveInt.default(50),
    /** Default retention of new spans, hours (workspaces override it later). */
    SVC_DEFAULT_RETENTION_HOURS: positiveInt.default(720),
    // How often the retention sweeper runs (it deletes by hourly cutoffs).
    SVC_RETENTION_SWEEP_MS: positiveInt.default(3_600_000),
    // How often spend is compared with cost budgets.
    SVC_BUDGET_CHECK_MS: positiveInt.default(60_000),
    // Drift: the baseline window before the last 24 hours, and how often the day's drift is recomputed.
    SVC_DRIFT_BASELINE_DAYS: positiveInt.default(7),
    SVC_DRIFT_ROLLUP_MS: positiveInt.default(3_600_000),

    // Engines. SVC_ENGINES: which engine workers this process runs ('all', 'none', or a comma list).
    SVC_ENGINES: z.string().default('all'),
    // Traces one engine worker analyses at once, and its retries before a job is dead-lettered.
    SVC_ENGINE_CONCURRENCY: positiveInt.default(8),
    SVC_ENGINE_RETRY_ATTEMPTS: positiveInt.default(3),
    SVC_ENGINE_RETRY_BASE_MS: positiveInt.default(500),
    // Ingestion health calls an engine stalled when jobs this old have not been followed by a success.
    SVC_ENGINE_STALL_MS: positiveInt.default(15 * 60_000),
    // Sampling (services/engines/src/runtime/sampling.ts): the share of traces every engine analyses, in (0, 1],
    // and the longest an engine's jobs may wait before it analyses a smaller sample to catch up (0: never sample).
    SVC_ENGINE_SAMPLE_RATE: z.coerce.number().gt(0).max(1).default(1),
    SVC_ENGINE_MAX_LAG_SECONDS: z.coerce.number().int().nonnegative().default(300),
    SVC_ENGINE_MAX_TRACE_SPANS: z.coerce.number().int().positive().default(20_000),
    SVC_ENGINE_MAX_TRACE_BYTES: z.coerce.number().int().positive().default(128 << 20),
    // LLM calls of the engines: per-call deadline and calls in flight per organization.
    SVC_ENGINE_LLM_TIMEOUT_MS: positiveInt.default(30_000),
    SVC_ENGINE_LLM_CONCURRENCY: positiveInt.default(4),
    // The platform default model, used only as the fallback of organizations that turn fallback on.
    SVC_PLATFORM_LLM_PROVIDER: optionalString,
    SVC_PLATFORM_LLM_MODEL: optionalString,
    SVC_PLATFORM_LLM_API_KEY: optionalString,
    SVC_PLATFORM_LLM_API_BASE: optionalString,
    // The web search API behind the search credential (Tavily-compatible).
    SVC_SEARCH_API_BASE: z.string().url().default('https://api.tavily.com'),
    // Calls that carry an organization's key (its LLM provider, embeddings, web search) reach public addresses
    // only; true lets them reach loopback and private networks too (a model on this machine or the LAN, tests).
    SVC_EGRESS_ALLOW_PRIVATE: bool.default('false'),
    // Alignment: policy passages fetched per output sentence, and the largest policy document accepted (bytes).
    SVC_ALIGNMENT_TOP_K: positiveInt.default(3),
    SVC_ALIGNMENT_MAX_DOC_BYTES: positiveInt.default(10 * 1024 * 1024),
    // Where the engines' sentence-embedding model is kept (`pnpm install` fetches it; default .svc-models/ in the repository).
    SVC_MODEL_DIR: optionalString,
    // Largest read-API request body (every route but the alignment upload, which has the limit above); larger → 413.
    SVC_API_MAX_BODY_BYTES: positiveInt.default(1024 * 1024),

    SVC_INIT_ORG_SLUG: optionalString,
    SVC_INIT_WORKSPACE_SLUG: optionalString,
    SVC_INIT_PROJECT_ID: optionalString,
    SVC_INIT_API_KEY: optionalString,
    SVC_INIT_USER_EMAIL: optionalString,
    SVC_INIT_USER_PASSWORD: optionalString,
    /** HMAC secret of login JWTs; generated into the data dir when unset (set it when running several API replicas). */
    SVC_JWT_SECRET: optionalString,
    SVC_JWT_TTL_SECONDS: positiveInt.default(3600),
    // How long an invitation to join an organization (POST .../members) can be redeemed.
    SVC_INVITATION_TTL_HOURS: positiveInt.default(168),
    // Login limits, per account and per client address, over fixed windows (shared through the cache).
    SVC_LOGIN_MAX_FAILURES_PER_ACCOUNT: positiveInt.default(10),
    SVC_LOGIN_MAX_FAILURES_PER_ADDRESS: positiveInt.default(100),
    SVC_LOGIN_WINDOW_SECONDS: positiveInt.default(900),
    // Proxies in front of the API whose X-Forwarded-For entries are trusted (0: the socket's address is the client's).
    SVC_TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
    // scrypt cost of password hashes (a power of two); OWASP's recommendation by default. Tests lower it.
    SVC_PASSWORD_SCRYPT_N: z.coerce
      .number()
      .int()
      .min(1024)
      .max(2 ** 20)
      .refine((n) => (n & (n - 1)) === 0, 'must be a power of two')
      .default(DEFAULT_SCRYPT.N),
    SVC_DEFAULT_COST_PROVIDER: z.string().default('openai'),
    // An operator's own model price table (JSON, the shape of services/shared/data/price-table.json).
    SVC_PRICE_TABLE_FILE: optionalString,
    // Master key of stored secrets (64 hex characters or base64 of 32 bytes); generated into the data dir when unset.
    SVC_MASTER_KEY: optionalString,
    /** Print-free test runs set this to skip the one-time banner of generated credentials. */
    SVC_QUIET_BOOTSTRAP: bool.default('false'),
  })
  .superRefine((c, ctx) => {
    if (c.SVC_BUS === 'kafka' && !c.KAFKA_BROKERS)
      ctx.addIssue({ code: 'custom', path: ['KAFKA_BROKERS'], message: 'required when SVC_BUS=kafka (e.g. 127.0.0.1:9092)' })
    if (c.SVC_BUS === 'kafka' && !c.REDIS_URL)
      ctx.addIssue({ code: 'custom', path: ['REDIS_URL'], message: 'required when SVC_BUS=kafka (processes coordinate through Redis)' })
    if (c.SVC_INIT_API_KEY && !c.SVC_INIT_API_KEY.startsWith('dr_'))
      ctx.addIssue({ code: 'custom', path: ['SVC_INIT_API_KEY'], message: 'must start with dr_' })
  })
  .transform((c) => ({ ...c, SVC_DATA_DIR: resolve(c.SVC_DATA_DIR) }))

export type Config = z.infer<typeof ConfigSchema>

/** The scrypt parameters new password hashes are made with. */
export const scryptParamsFrom = (config: Config) => ({ ...DEFAULT_SCRYPT, N: config.SVC_PASSWORD_SCRYPT_N })

export class ConfigError extends Error {}

/** Parses the environment (or overrides in tests); a bad value stops the process with one clear line per problem. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = ConfigSchema.safeParse(env)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(config)'}: ${i.message}`)
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`)
  }
  return parsed.data
}
