/**
 * OTLP protobuf (an HTTP body or a gRPC message) -> the object the OTLP/JSON
 * decoders consume, so everything after the wire format is one path: the same
 * decoders, rejections, dead letters and records. Reading is protobufjs over the
 * opentelemetry-proto definitions in ../../proto; the conversion is protobuf's
 * own JSON mapping (toObject): int64 as decimal strings, enums as numbers, NaN
 * and infinities as strings, bytes as base64. The 16- and 8-byte ids therefore
 * arrive as base64, which fields.ts reads as it does for OTLP/JSON written by
 * MessageToJson, and an AnyValue's bytesValue stays base64 text as in OTLP/JSON.
 */
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import protobuf from 'protobufjs'
import { MalformedRequest } from './fields.js'

export type OtlpSignal = 'traces' | 'metrics' | 'logs'

const PROTO_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../proto')

const SERVICES = {
  traces: { file: 'opentelemetry/proto/collector/trace/v1/trace_service.proto', pkg: 'opentelemetry.proto.collector.trace.v1', service: 'TraceService', message: 'Trace' },
  metrics: { file: 'opentelemetry/proto/collector/metrics/v1/metrics_service.proto', pkg: 'opentelemetry.proto.collector.metrics.v1', service: 'MetricsService', message: 'Metrics' },
  logs: { file: 'opentelemetry/proto/collector/logs/v1/logs_service.proto', pkg: 'opentelemetry.proto.collector.logs.v1', service: 'LogsService', message: 'Logs' },
} as const

/** The gRPC service of a signal, e.g. opentelemetry.proto.collector.trace.v1.TraceService. */
export const grpcServiceName = (signal: OtlpSignal): string => `${SERVICES[signal].pkg}.${SERVICES[signal].service}`

interface Types {
  request: Record<OtlpSignal, protobuf.Type>
  response: Record<OtlpSignal, protobuf.Type>
  status: protobuf.Type
  retryInfo: protobuf.Type
}

let loaded: Types | undefined

/** The definitions, parsed on first use (a few milliseconds, once per process). */
function types(): Types {
  if (loaded) return loaded
  const root = new protobuf.Root()
  root.resolvePath = (_origin, target) => join(PROTO_DIR, target)
  root.loadSync([...Object.values(SERVICES).map((s) => s.file), 'google/rpc/retry.proto'])
  const of = (field: 'Request' | 'Response') =>
    Object.fromEntries(Object.entries(SERVICES).map(([signal, s]) => [signal, root.lookupType(`${s.pkg}.Export${s.message}Service${field}`)])) as Record<OtlpSignal, protobuf.Type>
  loaded = { request: of('Request'), response: of('Response'), status: root.lookupType('google.rpc.Status'), retryInfo: root.lookupType('google.rpc.RetryInfo') }
  return loaded
}

// arrays: an empty repeated field is [] rather than absent (protobuf cannot tell them apart), so an empty request is 0 items, not malformed.
/**
 * What the in-flight budget is charged per byte of a protobuf body or message,
 * before it is decoded: decoded protobuf takes about five times the memory that
 * JSON of the same spans does per wire byte (measured: agent traces 9.3 heap bytes
 * per wire byte against JSON.parse's 1.9; empty items 80 against 21), so the budget
 * bounds the memory of both alike.
 */
export const PROTOBUF_CHARGE_PER_BYTE = 5

const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: Number, bytes: String, json: true, arrays: true }

/**
 * Decodes an Export<Signal>ServiceRequest. Bytes that are not one (truncated, a
 * declared length past the end, a wrong wire type, nesting past the limit)
 * throw MalformedRequest: the request is answered 400 / INVALID_ARGUMENT. A valid
 * message of another type may decode; what it lacks (ids, times) rejects its items.
 */
export function decodeProtobufRequest(signal: OtlpSignal, bytes: Uint8Array): unknown {
  const type = types().request[signal]
  try {
    return type.toObject(type.decode(bytes), TO_OBJECT)
  } catch (err) {
    throw new MalformedRequest(`body is not a valid ${type.name}: ${reason(err)}`)
  }
}

/**
 * protobufjs stops at 100 nested messages (protoc's default recursion limit), so
 * an attribute value can nest about 30 AnyValue levels in protobuf (each level is
 * three messages) where OTLP/JSON allows MAX_JSON_DEPTH; the stock SDKs' encoders
 * have the same limit. The stack is the last resort should a limit ever be lifted.
 */
function reason(err: unknown): string {
  if (err instanceof Error && err.message === 'max depth exceeded') return `nested deeper than ${protobuf.util.recursionLimit} messages`
  if (err instanceof RangeError && /call stack/i.test(err.message)) return 'nested too deeply'
  return err instanceof Error ? err.message : String(err)
}

/** Export<Signal>ServiceResponse; partial_success only when something was rejected (the OTLP rule). */
export function encodeExportResponse(signal: OtlpSignal, partial: { field: string; rejected: number; errorMessage: string }): Uint8Array {
  const type = types().response[signal]
  const body = partial.rejected ? { partialSuccess: { [partial.field]: partial.rejected, errorMessage: partial.errorMessage } } : {}
  return type.encode(type.fromObject(body)).finish()
}

/** A google.rpc.Status carrying RetryInfo: what OTLP/gRPC clients read from grpc-status-details-bin before retrying. */
export function encodeRetryStatus(code: number, message: string, retryDelaySeconds: number): Uint8Array {
  const { status, retryInfo } = types()
  const info = retryInfo.encode(retryInfo.fromObject({ retryDelay: { seconds: retryDelaySeconds } })).finish()
  return status.encode(status.fromObject({ code, message, details: [{ type_url: 'type.googleapis.com/google.rpc.RetryInfo', value: info }] })).finish()
}

/** Encodes an Export<Signal>ServiceRequest given in protobuf's JSON mapping (ids in base64): test and benchmark bodies. */
export function encodeProtobufRequest(signal: OtlpSignal, request: Record<string, unknown>): Uint8Array {
  const type = types().request[signal]
  return type.encode(type.fromObject(request)).finish()
}
