/**
 * Admission: whether ingest takes new records at all, before a request's body is
 * read. Accepting more than the pipeline can land only grows a backlog (the spans
 * accepted now would be listed minutes later) and, on the embedded log, the disk.
 * So a request is answered 503 + Retry-After (what OTLP exporters retry on) while
 *
 * - the consumer of its records is more than SVC_MAX_LAG_SECONDS behind: the oldest
 *   record it has not committed is older than that (spans: the assembler on
 *   spans.raw.v2; coding-agent metrics and logs: the coding-agent consumer), as the
 *   consumers publish it (shared/src/bus/consumer-lag.ts), read every second;
 * - the embedded log is at its disk budget (SVC_EMBEDDED_MAX_BYTES) with records
 *   its consumers have not read yet (consumed segments are deleted before that).
 *
 * Nothing answered 503 was written; what was accepted before stays accepted. The
 * refusals are counted on /metrics and per workspace for ingestion health, and the
 * figures admitted against are published for it (shared/src/domain/ingest-admission.ts).
 */
import { Gauge, type Registry } from 'prom-client'
import { localLagMs, readConsumerLagMs } from '@svc/shared/bus/consumer-lag'
import { GROUPS, TOPICS } from '@svc/shared/bus/topics'
import type { Bus, DiskUsage } from '@svc/shared/bus/types'
import type { Cache } from '@svc/shared/cache/types'
import { countRefusals, publishAdmissionStatus, type RefusalReason } from '@svc/shared/domain/ingest-admission'
import { HttpError } from '@svc/shared/http/errors'
import type { Logger } from '@svc/shared/log'
import type { IngestMetrics } from './metrics.js'
import type { OtlpSignal } from './otlp/protobuf.js'

/** The topic each signal's records go to, and the consumer group whose lag bounds it. */
const GATES: Record<OtlpSignal, { topic: string; group: string }> = {
  traces: { topic: TOPICS.spansRaw, group: GROUPS.assembler },
  metrics: { topic: TOPICS.codingAgentMetrics, group: GROUPS.codingAgent },
  logs: { topic: TOPICS.codingAgentEvents, group: GROUPS.codingAgent },
}

export interface Refusal {
  reason: RefusalReason
  retryAfterSeconds: number
  detail: Record<string, number>
}

/** Longest Retry-After: past it an exporter would give the batch up before asking again. */
const MAX_RETRY_AFTER_S = 30
const DISK_RETRY_AFTER_S = 5

/**
 * The verdict on a request whose records' consumer is `lagMs` behind (null: no
 * consumer has reported), with the log's disk use (null: not the embedded log).
 * Retry-After grows with how far over the bound the lag is: just over it, the
 * exporter is back within seconds; far over (a restart with a backlog), it waits.
 */
export function admissionVerdict(lagMs: number | null, maxLagMs: number, disk: DiskUsage | null): Refusal | null {
  if (disk && disk.bytes >= disk.maxBytes) return { reason: 'disk', retryAfterSeconds: DISK_RETRY_AFTER_S, detail: { log_bytes: disk.bytes, log_max_bytes: disk.maxBytes } }
  if (maxLagMs > 0 && lagMs !== null && lagMs > maxLagMs) {
    const over = Math.ceil((lagMs - maxLagMs) / 1000)
    return { reason: 'lag', retryAfterSeconds: Math.min(MAX_RETRY_AFTER_S, 1 + over), detail: { lag_seconds: Math.round(lagMs / 100) / 10, max_lag_seconds: maxLagMs / 1000 } }
  }
  return null
}

const MESSAGES: Record<RefusalReason, string> = {
  lag: 'the pipeline is behind (its oldest unprocessed records are older than SVC_MAX_LAG_SECONDS); retry later',
  disk: 'the embedded log is at its disk budget (SVC_EMBEDDED_MAX_BYTES); retry later',
}

export interface AdmissionDeps {
  bus: Bus
  /** Where consumers publish their lag and where the status and refusals go; without one, this process's own consumers are read. */
  cache?: Cache
  /** pipelineNamespace(config): the keys of this deployment in the cache. */
  namespace: string
  maxLagSeconds: number
  metrics: IngestMetrics
  log: Logger
}

const REFRESH_MS = 1000
const PARTITIONS_REFRESH_MS = 60_000
const STATUS_TTL_MS = 10_000

export class Admission {
  private readonly lagMs = new Map<string, number | null>()
  private readonly partitions = new Map<string, { n: number; atMs: number }>()
  private refused = new Map<string, number>()
  private refreshing: Promise<void> | null = null
  private readonly timer: NodeJS.Timeout
  private readonly maxLagMs: number

  constructor(private readonly deps: AdmissionDeps) {
    this.maxLagMs = deps.maxLagSeconds * 1000
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS)
    this.timer.unref()
    void this.refresh()
  }

  /** Throws the 503 when records of `signal` must not be accepted now (counted for the workspace). */
  check(signal: OtlpSignal, workspaceId: string): void {
    const { topic } = GATES[signal]
    const refusal = admissionVerdict(this.lagMs.get(topic) ?? null, this.maxLagMs, this.deps.bus.diskUsage?.() ?? null)
    if (!refusal) return
    if (refusal.reason === 'lag') this.deps.metrics.refused_for_lag++
    else this.deps.metrics.refused_for_disk++
    this.refused.set(workspaceId, (this.refused.get(workspaceId) ?? 0) + 1)
    throw new HttpError(503, 'unavailable', MESSAGES[refusal.reason], { reason: refusal.reason, ...refusal.detail }, { 'Retry-After': String(refusal.retryAfterSeconds) })
  }

  /** Reads the lags now (tests; the timer does it every second). */
  refresh(): Promise<void> {
    this.refreshing ??= this.refreshOnce()
      .catch((err: unknown) => this.deps.log.warn({ err }, 'reading the pipeline lag failed; admitting on the last figures'))
      .finally(() => (this.refreshing = null))
    return this.refreshing
  }

  private async refreshOnce(): Promise<void> {
    const { cache, namespace } = this.deps
    const now = Date.now()
    const topics = new Map(Object.values(GATES).map((g) => [g.topic, g.group]))
    await Promise.all(
      [...topics].map(async ([topic, group]) => {
        const lag = cache ? await readConsumerLagMs(cache, namespace, group, topic, await this.partitionsOf(topic, now), now) : localLagMs(group, topic, now)
        this.lagMs.set(topic, lag)
      }),
    )
    if (!cache) return
    const refused = this.refused
    this.refused = new Map()
    const disk = this.deps.bus.diskUsage?.() ?? null
    await Promise.all([
      refused.size ? countRefusals(cache, namespace, refused, now) : null,
      publishAdmissionStatus(
        cache,
        namespace,
        {
          refusing: admissionVerdict(this.lagMs.get(TOPICS.spansRaw) ?? null, this.maxLagMs, disk)?.reason ?? null,
          lag_ms: this.lagMs.get(TOPICS.spansRaw) ?? null,
          max_lag_ms: this.maxLagMs,
          log_bytes: disk?.bytes ?? null,
          log_max_bytes: disk && Number.isFinite(disk.maxBytes) ? disk.maxBytes : null,
          measured_at_ms: now,
        },
        STATUS_TTL_MS,
      ),
    ])
  }

  private async partitionsOf(topic: string, now: number): Promise<number> {
    const known = this.partitions.get(topic)
    if (known && now - known.atMs < PARTITIONS_REFRESH_MS) return known.n
    // A bus without the topic (a test's) has no consumer of it to wait for.
    const n = await this.deps.bus.endOffsets(topic).then((o) => o.size, () => 0)
    this.partitions.set(topic, { n, atMs: now })
    return n
  }

  /** svc_ingest_lag_seconds{topic} (what requests are admitted against), svc_embedded_log_bytes and its budget. */
  register(registry: Registry): void {
    const lagMs = this.lagMs
    new Gauge({
      name: 'svc_ingest_lag_seconds',
      help: 'Age of the oldest record not yet committed by the consumer of each topic ingest writes, as admission reads it (absent: no consumer reporting)',
      labelNames: ['topic'],
      registers: [registry],
      collect() {
        this.reset()
        for (const [topic, ms] of lagMs) if (ms !== null) this.set({ topic }, ms / 1000)
      },
    })
    const maxLag = this.deps.maxLagSeconds
    new Gauge({
      name: 'svc_ingest_max_lag_seconds',
      help: 'SVC_MAX_LAG_SECONDS: the lag past which ingest answers 503 (0: no bound)',
      registers: [registry],
      collect() {
        this.set(maxLag)
      },
    })
    const disk = this.deps.bus.diskUsage?.bind(this.deps.bus)
    if (!disk) return
    new Gauge({
      name: 'svc_embedded_log_bytes',
      help: 'Bytes of the embedded log on disk',
      registers: [registry],
      collect() {
        this.set(disk().bytes)
      },
    })
    new Gauge({
      name: 'svc_embedded_log_max_bytes',
      help: 'SVC_EMBEDDED_MAX_BYTES: the disk budget at which ingest answers 503',
      registers: [registry],
      collect() {
        this.set(disk().maxBytes)
      },
    })
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.refreshing
    // The last second's refusals still reach ingestion health.
    if (this.deps.cache && this.refused.size) await countRefusals(this.deps.cache, this.deps.namespace, this.refused, Date.now()).catch(() => {})
  }
}
