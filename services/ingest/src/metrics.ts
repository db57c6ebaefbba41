/**
 * Ingest counters as plain numbers, shared by the routes and exposed on the app so
 * tests and (later) a Prometheus /metrics endpoint can read them.
 */
export interface IngestMetrics {
  /** Trace requests that reached the handler (authenticated). */
  requests: number
  /** Spans durable on spans.raw.v1. */
  accepted_spans: number
  /** Spans that failed validation inside an accepted batch. */
  rejected_spans: number
  /** Rejected spans durable on spans.raw.v1.dlq. */
  dead_lettered: number
  /** Requests answered 400 because the body or its shape was malformed. */
  malformed_requests: number
  /** Requests answered 503 because the in-flight byte budget was full. */
  throttled_requests: number
  /** Requests answered 503 because the bus did not acknowledge the produce. */
  produce_failures: number
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
    text_attributes_dropped: 0,
    inflight_bytes: 0,
  }
}

/** The counters in the Prometheus text exposition format (GET /metrics). */
export function renderMetrics(m: IngestMetrics): string {
  const lines: string[] = []
  for (const [name, value] of Object.entries(m)) {
    const metric = `svc_ingest_${name}${name === 'inflight_bytes' ? '' : '_total'}`
    lines.push(`# TYPE ${metric} ${name === 'inflight_bytes' ? 'gauge' : 'counter'}`, `${metric} ${value}`)
  }
  return lines.join('\n') + '\n'
}
