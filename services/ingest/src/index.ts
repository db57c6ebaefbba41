export { createIngestApp, type IngestApp, type IngestDeps } from './app.js'
export { startIngest, type RunningIngest } from './service.js'
export type { IngestMetrics } from './metrics.js'
export { decodeTraceRequest, type DecodeContext, type DecodeResult } from './otlp/decode.js'
