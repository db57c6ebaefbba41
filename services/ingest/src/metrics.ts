import type { MiddlewareHandler } from 'hono'
import { Counter, Gauge, Registry } from 'prom-client'
import { requestMetrics } from '@svc/shared/http/request-metrics'

/**
 * Ingest counters as plain numbers, shared by the routes and exposed on the app so
 * tests read them directly and GET /metrics reads them when scraped (ingestRegistry).
 */
export interface IngestMetrics {
  /** Trace requests that reached the handler (authenticated). */
  requests: number
  /** Spans durable on spans.raw.v2. */
  accepted_spans: number
  /** Spans that failed validation inside an accepted batch. */
  rejected_spans: number
  /** Rejected spans durable on spans.raw.v2.dlq. */
  dead_lettered: number
  /** Requests answered 400 because the body or its shape was malformed. */
  malformed_requests: number
  /** Requests answered 503 because the in-flight byte budget was full. */
  throttled_requests: number
  /** Requests answered 503 because the bus did not acknowledge the produce. */
  produce_failures: number
  /** Requests answered 503 because their records' consumer was more than SVC_MAX_LAG_SECONDS behind. */
  refused_for_lag: number
  /** Requests answered 503 because the embedded log was at its disk budget (SVC_EMBEDDED_MAX_BYTES). */
  refused_for_disk: number
  /** Prompt/completion text attributes removed because the workspace keeps capture_text off. */
  text_attributes_dropped: number
  /** Decompressed bytes accepted but not yet durable on the bus (a gauge). */
  inflight_bytes: number
}

export function createIngestMetrics(): IngestMetrics {
  return {
    requests: 0,
    accepted_spans: 0,
    rejected_spans: 0,
    dead_lettered: 0,
    malformed_requests: 0,
    throttled_requests: 0,
    produce_failures: 0,
    refused_for_lag: 0,
    refused_for_disk: 0,
    text_attributes_dropped: 0,
    inflight_bytes: 0,
  }
}

/**
 * The ingest registry (prom-client): the counters above, read when scraped, and the
 * request duration histogram (by route pattern) the app observes with `observe`.
 */
export function ingestRegistry(m: IngestMetrics, inflightBytes: () => number): { registry: Registry; observe: MiddlewareHandler } {
  const registry = new Registry()
  for (const name of Object.keys(m) as Array<keyof IngestMetrics>) {
    if (name === 'inflight_bytes') continue
    new Counter({
      name: `svc_ingest_${name}_total`,
      help: `ingest ${name.replace(/_/g, ' ')}`,
      registers: [registry],
      collect() {
        this.reset()
        this.inc(m[name])
      },
    })
  }
  new Gauge({
    name: 'svc_ingest_inflight_bytes',
    help: 'Decompressed bytes accepted but not yet durable on the bus',
    registers: [registry],
    collect() {
      this.set(inflightBytes())
    },
  })
  const { observe } = requestMetrics('svc_ingest_request_duration_seconds', 'Ingest request duration, by route pattern and status', registry)
  return { registry, observe }
}
