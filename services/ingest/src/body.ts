/**
 * Reads an ingest request body under a size limit that holds after decompression:
 * the raw stream is cut off at the limit, and gzip/deflate output is capped with
 * zlib's maxOutputLength, so neither a huge upload nor a gzip bomb is ever held in
 * memory beyond `maxBytes`.
 */
import { gunzip, inflate } from 'node:zlib'
import type { Context } from 'hono'
import { badRequest, HttpError, payloadTooLarge } from '@svc/shared/http/errors'

const unzip = (fn: typeof gunzip, buf: Buffer, maxOutputLength: number) =>
  new Promise<Buffer>((resolve, reject) => fn(buf, { maxOutputLength }, (err, out) => (err ? reject(err) : resolve(out))))

const bodyTooLarge = (maxBytes: number) => payloadTooLarge(`request body exceeds ${maxBytes} bytes (measured after decompression)`, maxBytes)

const unsupportedMediaType = (message: string) => new HttpError(415, 'unsupported_media_type', message)

/**
 * JSON only (spec: "415 ingest content type is protobuf"). A missing content type
 * is taken as JSON, as are structured-suffix types such as application/otlp+json.
 */
export function checkContentType(header: string | undefined): void {
  const media = (header ?? '').split(';')[0]!.trim().toLowerCase()
  if (media === '' || media === 'application/json' || /^[a-z0-9!#$&^_.-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(media)) return
  if (media === 'application/x-protobuf' || media === 'application/protobuf')
    throw unsupportedMediaType('protobuf is not accepted; send OTLP/JSON (e.g. OTEL_EXPORTER_OTLP_PROTOCOL=http/json)')
  throw unsupportedMediaType(`content type ${media} is not accepted; send application/json`)
}

type Encoding = 'identity' | 'gzip' | 'deflate'

export function contentEncoding(header: string | undefined): Encoding {
  const enc = (header ?? '').trim().toLowerCase()
  if (enc === '' || enc === 'identity') return 'identity'
  if (enc === 'gzip' || enc === 'x-gzip') return 'gzip'
  if (enc === 'deflate') return 'deflate'
  throw unsupportedMediaType(`content encoding ${enc} is not accepted; use gzip, deflate or none`)
}

/** Reads the stream into one buffer, refusing (413) as soon as it passes `maxBytes`. */
export async function readCapped(stream: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Buffer> {
  if (!stream) return Buffer.alloc(0)
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => {})
      throw bodyTooLarge(maxBytes)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, total)
}

export async function decompress(raw: Buffer, encoding: Encoding, maxBytes: number): Promise<Buffer> {
  if (encoding === 'identity') return raw
  try {
    // maxOutputLength makes zlib stop (ERR_BUFFER_TOO_LARGE) once the output passes the cap.
    return await unzip(encoding === 'gzip' ? gunzip : inflate, raw, maxBytes)
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw bodyTooLarge(maxBytes)
    throw badRequest(`body is not valid ${encoding} data`)
  }
}

export interface ReadBody {
  value: unknown
  /** Size after decompression: what the in-flight budget is charged. */
  bytes: number
}

/** Content type and encoding checks, capped read, decompression, JSON.parse (400 when invalid). */
export async function readJsonBody(c: Context, opts: { maxBytes: number }): Promise<ReadBody> {
  checkContentType(c.req.header('content-type'))
  const encoding = contentEncoding(c.req.header('content-encoding'))
  const declared = Number(c.req.header('content-length'))
  // Refuse an announced oversized upload without reading it.
  if (Number.isFinite(declared) && declared > opts.maxBytes) throw bodyTooLarge(opts.maxBytes)
  const raw = await readCapped(c.req.raw.body, opts.maxBytes)
  const buf = await decompress(raw, encoding, opts.maxBytes)
  let value: unknown
  try {
    const text = buf.toString('utf8')
    // A UTF-8 byte-order mark is legal in a JSON document but JSON.parse rejects it.
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  } catch (err) {
    throw badRequest(`body is not valid JSON: ${(err as Error).message}`)
  }
  return { value, bytes: buf.byteLength }
}
