/**
 * OTLP/gRPC (SVC_INGEST_GRPC_PORT): TraceService/Export, MetricsService/Export and
 * LogsService/Export, each one more transport of the ingest request life in
 * routes/accept.ts (auth, budget, limits, decoders, dead letters, OK only once
 * durable). Metrics and logs are the coding-agent endpoints', as over HTTP.
 *
 * Export is unary, but it is registered as client-streaming, which is the same on
 * the wire: grpc-js then calls the handler when the call's metadata arrives, before
 * it reads the message, so the key is checked and the in-flight budget admits the
 * call before any of its bytes are held (a unary handler is only called with the
 * whole message in memory). The messages stay raw bytes until our decoder reads
 * them. grpc-js itself inflates gzip (refusing output past the size limit) and
 * answers RESOURCE_EXHAUSTED for a message over SVC_INGEST_MAX_BODY_BYTES.
 *
 * Statuses follow the OTLP specification: INVALID_ARGUMENT for a malformed
 * request, UNAUTHENTICATED, RESOURCE_EXHAUSTED (without retry information, so
 * not retried) for a message too large, UNAVAILABLE with RetryInfo (retried) when
 * the budget is full or the bus did not acknowledge.
 */
import * as grpc from '@grpc/grpc-js'
import { badRequest, HttpError } from '@svc/shared/http/errors'
import type { Logger } from '@svc/shared/log'
import { authenticate } from './middleware/api-key.js'
import { encodeExportResponse, encodeRetryStatus, grpcServiceName, PROTOBUF_CHARGE_PER_BYTE, type OtlpSignal } from './otlp/protobuf.js'
import { ingestRequest, type IngestRoute, type IngestRouteDeps } from './routes/accept.js'
import { codingAgentRoute } from './routes/coding-agent.js'

/** The endpoint behind each service: traces, and the coding-agent metrics and logs. */
const GRPC_ROUTES: Record<OtlpSignal, IngestRoute> = {
  traces: { preparer: 'traces', source: 'ingest.grpc.traces', signal: 'traces' },
  metrics: { ...codingAgentRoute.metrics, source: 'ingest.grpc.metrics' },
  logs: { ...codingAgentRoute.logs, source: 'ingest.grpc.logs' },
}

const raw = (b: Buffer) => b

function exportService(signal: OtlpSignal): grpc.ServiceDefinition {
  return {
    Export: {
      path: `/${grpcServiceName(signal)}/Export`,
      originalName: 'export',
      requestStream: true, // unary on the wire; see the file comment
      responseStream: false,
      requestSerialize: raw,
      requestDeserialize: raw,
      responseSerialize: raw,
      responseDeserialize: raw,
    },
  }
}

const GRPC_OF_HTTP: Partial<Record<number, grpc.status>> = {
  400: grpc.status.INVALID_ARGUMENT,
  401: grpc.status.UNAUTHENTICATED,
  413: grpc.status.RESOURCE_EXHAUSTED,
  415: grpc.status.INVALID_ARGUMENT,
  503: grpc.status.UNAVAILABLE,
}

/** An ingest error as a gRPC status; UNAVAILABLE carries the RetryInfo OTLP clients wait on (the 503's Retry-After). */
export function grpcError(err: unknown): Partial<grpc.StatusObject> {
  if (!(err instanceof HttpError)) return { code: grpc.status.INTERNAL, details: 'internal error' }
  const code = GRPC_OF_HTTP[err.status] ?? grpc.status.UNKNOWN
  const metadata = new grpc.Metadata()
  const retryAfter = Number(err.headers?.['Retry-After'])
  if (code === grpc.status.UNAVAILABLE && retryAfter > 0) metadata.set('grpc-status-details-bin', Buffer.from(encodeRetryStatus(code, err.message, retryAfter)))
  return { code, details: err.message, metadata }
}

/** gRPC metadata read like HTTP headers (x-svc-api-key, authorization). */
const metadataHeaders = (md: grpc.Metadata) => ({
  header: (name: string) => {
    const v = md.get(name)[0]
    return typeof v === 'string' ? v : undefined
  },
})

/** The one request message of a call, charged at what it will take decoded (as protobuf bodies are); a second message is refused. */
async function oneMessage(call: grpc.ServerReadableStream<Buffer, Buffer>, charge: (held: number) => void): Promise<Buffer> {
  let message: Buffer | undefined
  for await (const chunk of call as AsyncIterable<Buffer>) {
    if (message) throw badRequest('Export takes one request message')
    charge(chunk.byteLength * PROTOBUF_CHARGE_PER_BYTE)
    message = chunk
  }
  return message ?? Buffer.alloc(0)
}

function exportHandler(deps: IngestRouteDeps, route: IngestRoute, log: Logger): grpc.handleClientStreamingCall<Buffer, Buffer> {
  return (call, respond) => {
    const answer = async () => {
      const outcome = await ingestRequest(deps, route, {
        principal: authenticate(deps.state, metadataHeaders(call.metadata), deps.onKeyUsed),
        declaredBytes: 0,
        read: async (charge) => {
          const bytes = await oneMessage(call, charge)
          return { bytes, format: 'protobuf', charged: bytes.byteLength * PROTOBUF_CHARGE_PER_BYTE }
        },
      })
      return Buffer.from(encodeExportResponse(route.signal, outcome.partial))
    }
    answer().then(
      (response) => respond(null, response),
      (err: unknown) => {
        if (!(err instanceof HttpError)) {
          // A call the client cancelled (or grpc-js ended: deadline, size) leaves nothing to answer.
          if (call.cancelled) return
          log.error({ err, source: route.source }, 'unhandled error in a gRPC export')
        }
        respond(grpcError(err))
      },
    )
  }
}

export interface GrpcIngestOptions {
  host: string
  port: number
  log: Logger
}

export interface RunningGrpc {
  port: number
  /** Stops taking calls and waits for those in progress (call after the budget drained). */
  close(): Promise<void>
}

export async function startGrpcIngest(deps: IngestRouteDeps, opts: GrpcIngestOptions): Promise<RunningGrpc> {
  const server = new grpc.Server({ 'grpc.max_receive_message_length': deps.maxBodyBytes })
  for (const signal of ['traces', 'metrics', 'logs'] as const) server.addService(exportService(signal), { Export: exportHandler(deps, GRPC_ROUTES[signal], opts.log) })
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${opts.port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
  )
  opts.log.info({ port, host: opts.host }, 'ingest gRPC listening')
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        // A call still open after the drain (a client that never finishes sending) is cut off after a grace period.
        const force = setTimeout(() => server.forceShutdown(), 2_000)
        server.tryShutdown(() => {
          clearTimeout(force)
          resolve()
        })
      }),
  }
}
