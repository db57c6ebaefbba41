/**
 * The fetch of outbound calls that carry an organization's secret (its LLM
 * provider, its embedding model, the web search): unless an operator allows private
 * egress (SVC_EGRESS_ALLOW_PRIVATE), it refuses any address that is not public
 * unicast (private-address.ts). The check is made on the address a socket actually
 * connects to, not on the URL's text: IP literals before connecting, names inside
 * the socket's own DNS lookup, so a name that resolves to a private address, now or
 * after a rebinding, is refused too. Redirects are answered as they are and never
 * followed, so they cannot lead anywhere else.
 *
 * Built on node:http rather than the global fetch, whose connection layer (undici)
 * takes no lookup hook without an extra package; it behaves like fetch where the
 * provider SDKs look: a `Response` with a streamed body, gzip/deflate/br decoded,
 * a failure to connect rejected as TypeError('fetch failed') with the reason as its
 * cause, an abort rejected with the signal's reason.
 */
import { lookup as dnsLookup } from 'node:dns/promises'
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import { Readable } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import { literalHostReason, nonPublicReason, urlHost } from './private-address.js'

export class EgressRefusedError extends Error {
  override name = 'EgressRefusedError'
  readonly code = 'EGRESS_REFUSED'
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(
      `outbound call to ${host}${address && address !== host ? ` (${address})` : ''} refused: ${reason}` +
        (address ? ' is not a public address; an operator can allow private addresses with SVC_EGRESS_ALLOW_PRIVATE=true' : ''),
    )
  }
}

export interface ResolvedAddress { address: string; family: number }

export interface EgressOptions {
  /** SVC_EGRESS_ALLOW_PRIVATE: skip the address check (local models, the tests' loopback servers). */
  allowPrivate: boolean
  /** Every refusal, for a log line (the caller's error only says the call failed). */
  onRefused?(e: EgressRefusedError): void
  /** The resolver; the system's (getaddrinfo) by default. Tests stand in a rebinding one. */
  lookup?(host: string): Promise<ResolvedAddress[]>
}

const systemLookup = (host: string) => dnsLookup(host, { all: true, verbatim: true })

/** A socket lookup that resolves every address of a name and refuses the name if any of them is not public. */
function guardedLookup(resolve: (host: string) => Promise<ResolvedAddress[]>, refuse: (e: EgressRefusedError) => void): LookupFunction {
  return (hostname, options, callback) => {
    const wanted = typeof options === 'object' && options.family ? Number(options.family) : 0
    resolve(hostname).then(
      (found) => {
        const all = found.filter((a) => wanted === 0 || a.family === wanted)
        const bad = all.map((a) => ({ a, reason: nonPublicReason(a.address) })).find((x) => x.reason !== null)
        if (bad) {
          const e = new EgressRefusedError(hostname, bad.a.address, bad.reason!)
          refuse(e)
          return callback(e, '', 0)
        }
        const first = all[0]
        if (!first) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0)
        // Node asks for every address when it races IPv4 and IPv6 (autoSelectFamily), else for one.
        if (typeof options === 'object' && options.all) return (callback as unknown as (err: null, a: ResolvedAddress[]) => void)(null, all)
        callback(null, first.address, first.family)
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    )
  }
}

function decoded(res: IncomingMessage): Readable {
  switch ((res.headers['content-encoding'] ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return res.pipe(createGunzip())
    case 'deflate':
      return res.pipe(createInflate())
    case 'br':
      return res.pipe(createBrotliDecompress())
    default:
      return res
  }
}

function toResponse(res: IncomingMessage): Response {
  const headers = new Headers()
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!)
  const code = res.statusCode ?? 502
  // Response takes 200-599 only; anything else is as broken as a gateway error.
  const status = code >= 200 && code <= 599 ? code : 502
  const empty = status === 204 || status === 304
  let body: ReadableStream<Uint8Array> | null = null
  if (!empty) {
    const stream = decoded(res)
    if (stream !== res) {
      headers.delete('content-encoding')
      headers.delete('content-length')
      res.on('error', (e) => stream.destroy(e))
    }
    body = Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>
  } else res.resume()
  return new Response(body, { status, statusText: res.statusMessage ?? '', headers })
}

/** A fetch that refuses private addresses unless `allowPrivate`; one keep-alive pool per call of this function. */
export function egressFetch(opts: EgressOptions): typeof fetch {
  const refuse = (e: EgressRefusedError) => {
    try {
      opts.onRefused?.(e)
    } catch {
      // Reporting a refusal must not change what the caller sees.
    }
  }
  const lookup = opts.allowPrivate ? undefined : guardedLookup(opts.lookup ?? systemLookup, refuse)
  const agents = { 'http:': new HttpAgent({ keepAlive: true, lookup }), 'https:': new HttpsAgent({ keepAlive: true, lookup }) }

  return async (input, init) => {
    const req = new Request(input, init)
    const url = new URL(req.url)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      const e = new EgressRefusedError(url.href, '', `scheme ${url.protocol} is not http or https`)
      refuse(e)
      throw new TypeError('fetch failed', { cause: e })
    }
    const literal = opts.allowPrivate ? null : literalHostReason(url)
    if (literal) {
      const e = new EgressRefusedError(urlHost(url), urlHost(url), literal)
      refuse(e)
      throw new TypeError('fetch failed', { cause: e })
    }
    const signal = req.signal
    signal.throwIfAborted()
    const body = req.body ? Buffer.from(await req.arrayBuffer()) : null
    const headers: Record<string, string> = {}
    req.headers.forEach((v, k) => (headers[k] = v))
    if (body) headers['content-length'] = String(body.length)

    return new Promise<Response>((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest
      const outgoing = send(url, { method: req.method, headers, agent: agents[url.protocol as 'http:' | 'https:'] }, (res) => {
        signal.removeEventListener('abort', onAbort)
        // A later abort ends the body the caller is reading.
        const endBody = () => res.destroy(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)))
        signal.addEventListener('abort', endBody, { once: true })
        res.once('close', () => signal.removeEventListener('abort', endBody))
        resolve(toResponse(res))
      })
      const onAbort = () => {
        outgoing.destroy()
        reject(signal.reason)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      outgoing.on('error', (err) => {
        signal.removeEventListener('abort', onAbort)
        if (signal.aborted) return reject(signal.reason)
        reject(new TypeError('fetch failed', { cause: err }))
      })
      outgoing.end(body ?? undefined)
    })
  }
}
