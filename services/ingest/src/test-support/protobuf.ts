/**
 * OTLP/JSON test bodies as OTLP protobuf, for the tests and the ingest benchmark:
 * hex ids become bytes (base64 in protobuf's JSON mapping), then the request is
 * encoded by protobufjs over the same definitions ingest decodes with.
 */
import { encodeProtobufRequest, type OtlpSignal } from '../otlp/protobuf.js'

const base64OfHex = (v: unknown) => (typeof v === 'string' && /^[0-9a-fA-F]+$/.test(v) ? Buffer.from(v, 'hex').toString('base64') : v)

type Json = Record<string, unknown>
const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : [])

function idsToBase64(item: Json, fields: string[]): Json {
  const out = { ...item }
  for (const f of fields) if (out[f] !== undefined) out[f] = base64OfHex(out[f])
  return out
}

/** An ExportTraceServiceRequest given as OTLP/JSON (hex ids), as protobuf bytes. */
export function tracesProtobuf(request: { resourceSpans: unknown[] }): Uint8Array {
  const resourceSpans = list(request.resourceSpans).map((rs) => ({
    ...rs,
    scopeSpans: list(rs.scopeSpans).map((ss) => ({
      ...ss,
      spans: list(ss.spans).map((s) => ({ ...idsToBase64(s, ['traceId', 'spanId', 'parentSpanId']), links: list(s.links).map((l) => idsToBase64(l, ['traceId', 'spanId'])) })),
    })),
  }))
  return encodeProtobufRequest('traces', { resourceSpans })
}

/** Metrics and logs requests carry no ids that ingest reads: encoded as they are. */
export const otlpProtobuf = (signal: Exclude<OtlpSignal, 'traces'>, request: Json): Uint8Array => encodeProtobufRequest(signal, request)
