/**
 * Reads an ingest request body under a size limit that holds after decompression.
 * The body is read as it streams in (a chunked upload has no content-length to
 * trust) and gzip/deflate are inflated as it arrives, so what is held grows one
 * chunk at a time: past `maxBytes` (of the wire bytes or of the output) the read
 * stops with 413, and every chunk is first charged to the caller (the in-flight
 * budget), which can stop it too. Neither a huge upload nor a gzip bomb is ever
 * held whole. The body is JSON, or OTLP protobuf where the operator turned it on;
 * it is parsed with the rest of the request's CPU work (prepare.ts).
 */
import { Readable, pipeline } from 'node:stream'
import { createGunzip, createInflate } from 'node:zlib'
import type { Context } from 'hono'
import { badRequest, HttpError, payloadTooLarge } from '@svc/shared/http/errors'
import { PROTOBUF_CHARGE_PER_BYTE } from './otlp/protobuf.js'

const bodyTooLarge = (maxBytes: number) => payloadTooLarge(`request body exceeds ${maxBytes} bytes (measured after decompression)`, maxBytes)

const unsupportedMediaType = (message: string, detail?: unknown) => new HttpError(415, 'unsupported_media_type', message, detail)

/**
 * Each producer's working route to OTLP/JSON, in the 415 a protobuf body gets while
 * protobuf is off (and in the README): the stock Python SDK has no http/json
 * protocol, so that hint alone would send a Python user nowhere.
 */
export const JSON_ROUTES = {
  python: 'the svc-sdk package (services/sdk-python), or opentelemetry-exporter-otlp-json-http with OTEL_TRACES_EXPORTER=otlp_json_http',
  javascript: 'OTEL_EXPORTER_OTLP_PROTOCOL=http/json (@opentelemetry/exporter-trace-otlp-http)',
  collector: 'the otlphttp exporter with encoding: json',
  other: 'send through an OpenTelemetry Collector as above, or ask the operator to turn on protobuf (SVC_INGEST_PROTOBUF=true) or gRPC (SVC_INGEST_GRPC_PORT)',
} as const

export type BodyFormat = 'json' | 'protobuf'

/**
 * JSON always; protobuf only when the operator turned it on (spec: "415 ingest
 * content type is protobuf", the default). A missing content type is taken as JSON,
 * as are structured-suffix types such as application/otlp+json.
 */
export function bodyFormat(header: string | undefined, protobuf = false): BodyFormat {
  const media = (header ?? '').split(';')[0]!.trim().toLowerCase()
  if (media === '' || media === 'application/json' || /^[a-z0-9!#$&^_.-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(media)) return 'json'
  if (media === 'application/x-protobuf' || media === 'application/protobuf') {
    if (protobuf) return 'protobuf'
    throw unsupportedMediaType('protobuf is not accepted by this server; send OTLP/JSON (detail.routes names the way for each producer)', { routes: JSON_ROUTES })
  }
  throw unsupportedMediaType(`content type ${media} is not accepted; send application/json${protobuf ? ' or application/x-protobuf' : ''}`)
}

type Encoding = 'identity' | 'gzip' | 'deflate'

export function contentEncoding(header: string | undefined): Encoding {
  const enc = (header ?? '').trim().toLowerCase()
  if (enc === '' || enc === 'identity') return 'identity'
  if (enc === 'gzip' || enc === 'x-gzip') return 'gzip'
  if (enc === 'deflate') return 'deflate'
  throw unsupportedMediaType(`content encoding ${enc} is not accepted; use gzip, deflate or none`)
}

export interface BodyLimits {
  /** Most bytes on the wire, and most after decompression (413 past either). */
  maxBytes: number
  /** Called with the bytes held so far each time they grow; throws to stop the read (the in-flight budget's 503). */
  charge?: (heldBytes: number) => void
}

/** The request's chunks as they arrive, cut off (413) once they pass `maxBytes`; the stream is cancelled when the reading stops early. */
async function* wireChunks(stream: ReadableStream<Uint8Array>, maxBytes: number): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader()
  let total = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      total += value.byteLength
      if (total > maxBytes) throw bodyTooLarge(maxBytes)
      yield value
    }
  } finally {
    // Not awaited: a cancel can wait on the client's next chunk, and the bytes held must be released now.
    reader.cancel().catch(() => {})
  }
}

const isZlibError = (err: unknown) => typeof (err as { code?: unknown }).code === 'string' && (err as { code: string }).code.startsWith('Z_')

/** The body, decompressed, read chunk by chunk under `limits` (see the file comment). */
export async function readBodyBytes(stream: ReadableStream<Uint8Array> | null, encoding: Encoding, limits: BodyLimits): Promise<Buffer> {
  if (!stream) return Buffer.alloc(0)
  const chunks: Buffer[] = []
  let held = 0
  const keep = (chunk: Uint8Array) => {
    held += chunk.byteLength
    if (held > limits.maxBytes) throw bodyTooLarge(limits.maxBytes)
    limits.charge?.(held)
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))
  }
  const wire = wireChunks(stream, limits.maxBytes)
  if (encoding === 'identity') for await (const chunk of wire) keep(chunk)
  else {
    // highWaterMark 0: the inflater pulls one wire chunk at a time, so only the output is ever held.
    const output = pipeline(Readable.from(wire, { objectMode: false, highWaterMark: 0 }), encoding === 'gzip' ? createGunzip() : createInflate(), () => {})
    try {
      for await (const chunk of output) keep(chunk as Buffer)
    } catch (err) {
      if (isZlibError(err)) throw badRequest(`body is not valid ${encoding} data`)
      throw err
    }
  }
  return Buffer.concat(chunks, held)
}

export interface ReadBody {
  /** The body, decompressed; parsed later (prepare.ts), on an ingest thread. */
  bytes: Buffer
  /** What the in-flight budget is charged: the size after decompression (protobuf: times PROTOBUF_CHARGE_PER_BYTE, what it takes decoded). */
  charged: number
  format: BodyFormat
}

export interface IngestBodyOptions extends BodyLimits {
  /** Protobuf bodies accepted too; off, they get 415. */
  protobuf: boolean
}

/** Content type and encoding checks, then the capped and charged read with decompression. */
export async function readIngestBody(c: Context, opts: IngestBodyOptions): Promise<ReadBody> {
  const format = bodyFormat(c.req.header('content-type'), opts.protobuf)
  const encoding = contentEncoding(c.req.header('content-encoding'))
  const declared = Number(c.req.header('content-length'))
  // Refuse an announced oversized upload without reading it.
  if (Number.isFinite(declared) && declared > opts.maxBytes) throw bodyTooLarge(opts.maxBytes)
  const bytes = await readBodyBytes(c.req.raw.body, encoding, opts)
  return { bytes, charged: format === 'protobuf' ? bytes.byteLength * PROTOBUF_CHARGE_PER_BYTE : bytes.byteLength, format }
}
