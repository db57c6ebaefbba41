/**
 * A request body, decompressed by its Content-Encoding as it arrives (gzip, deflate,
 * br: what Node has; ClickHouse's lz4, zstd, snappy and xz are answered
 * NOT_IMPLEMENTED), held one chunk at a time under a limit that holds after
 * decompression: past `maxBytes` the read stops (QUERY_IS_TOO_LARGE, 413), or, with
 * `cutAt`, it just stops there and says so — for a statement that can carry no data,
 * where only the first max_query_size bytes matter (ClickHouse reads no further
 * either). A gzip bomb or an endless upload is never held whole.
 */
import type { IncomingMessage } from 'node:http'
import type { Readable, Transform } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import { CODES, ClickHouseException, exception } from './errors.js'

export interface ReadBody {
  bytes: Buffer
  /** The read stopped at `cutAt`; the rest of the body was not read. */
  cut: boolean
}

function decoder(encoding: string | undefined): Transform | null {
  const enc = (encoding ?? '').trim().toLowerCase()
  if (enc === '' || enc === 'identity' || enc === 'none') return null
  if (enc === 'gzip' || enc === 'x-gzip') return createGunzip()
  if (enc === 'deflate') return createInflate()
  if (enc === 'br') return createBrotliDecompress()
  if (['zstd', 'zst', 'lz4', 'snappy', 'xz', 'bz2', 'bzip2', 'lzma'].includes(enc))
    throw exception('NOT_IMPLEMENTED', `Content-Encoding ${enc} is not supported by this server (the embedded store's ClickHouse interface): use gzip, deflate, br or none`)
  throw new ClickHouseException(CODES.UNKNOWN_COMPRESSION_METHOD, `Unknown compression method '${enc}'. Only 'gzip', 'deflate', 'br' and 'none' are supported as compression methods here`, 'UNKNOWN_COMPRESSION_METHOD')
}

export function readBody(req: IncomingMessage, opts: { maxBytes: number; cutAt?: number }): Promise<ReadBody> {
  const inflate = decoder(req.headers['content-encoding'])
  const source: Readable = inflate ? req.pipe(inflate) : req
  return new Promise<ReadBody>((resolve, reject) => {
    const chunks: Buffer[] = []
    let held = 0
    // Stops reading without destroying the request: the answer still goes out on its socket (then closed).
    const stop = () => {
      source.off('data', onData)
      source.off('end', onEnd)
      source.off('error', onError)
      if (inflate) {
        req.unpipe(inflate)
        inflate.destroy()
      }
      req.pause()
    }
    const onData = (chunk: Buffer) => {
      if (opts.cutAt !== undefined && held + chunk.length >= opts.cutAt) {
        chunks.push(chunk.subarray(0, opts.cutAt - held))
        stop()
        resolve({ bytes: Buffer.concat(chunks), cut: true })
        return
      }
      held += chunk.length
      if (held > opts.maxBytes) {
        stop()
        reject(exception('QUERY_IS_TOO_LARGE', `The request body is larger than this server's limit of ${opts.maxBytes} bytes (SVC_CLICKHOUSE_HTTP_MAX_BODY_BYTES, measured after decompression)`))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      stop()
      resolve({ bytes: Buffer.concat(chunks, held), cut: false })
    }
    const onError = (err: Error) => {
      stop()
      const code = (err as { code?: unknown }).code
      if (typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code.startsWith('ERR__')))
        reject(new ClickHouseException(271, `Cannot decompress the request body (${req.headers['content-encoding']}): ${err.message}`, 'CANNOT_DECOMPRESS'))
      else reject(err)
    }
    source.on('data', onData)
    source.once('end', onEnd)
    source.on('error', onError)
  })
}
