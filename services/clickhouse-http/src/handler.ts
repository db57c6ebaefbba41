/**
 * The HTTP side of ClickHouse's interface: /ping, /replicas_status, and queries on
 * `/` (GET or POST, the query in `?query=`, the body, or both). One request's life:
 * credentials, parameters, the body (capped; cut short where only the statement can
 * matter), the plan, a slot among the user's concurrent queries, the engine, the
 * answer — streamed with the socket's backpressure, compressed when asked, and every
 * failure as ClickHouse writes it. A client that goes away cancels its query.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { hostname } from 'node:os'
import type { Writable } from 'node:stream'
import { constants, createBrotliCompress, createDeflate, createGzip } from 'node:zlib'
import type { Logger } from '@svc/shared/log'
import { limitConcurrency } from '@svc/shared/concurrency'
import { readBody } from './body.js'
import { ClickHouseException, exception, exceptionText, fromChdb, httpStatusFor } from './errors.js'
import type { ChdbExecutor, Outcome, Summary } from './executor.js'
import { contentTypeOf } from './formats.js'
import { claimQueryId, maxQuerySizeOf, planQuery } from './plan.js'
import { readRequestParams } from './request-params.js'
import { authenticate, presentedCredentials, type User, type UserName } from './users.js'

export interface HandlerDeps {
  executor: ChdbExecutor
  users: User[]
  log: Logger
  server: { version: string; timezone: string; maxQuerySize: number }
  maxBodyBytes: number
  analystLimits: Array<[string, string | number]>
  concurrency: Record<UserName, number>
  /** Appended to a refused login's message: where the passwords are. */
  credentialsHint: string
}

const DISPLAY_NAME = hostname()
const HEALTH_PATHS = new Set(['/ping', '/replicas_status'])

const summaryHeader = (s: Summary) => JSON.stringify(Object.fromEntries(Object.entries({ ...s, total_rows_to_read: 0 }).map(([k, v]) => [k, String(v)])))

/** The response compression a client accepts, in ClickHouse's order of preference among what Node has. */
function chooseEncoding(accept: string | undefined): 'br' | 'gzip' | 'deflate' | null {
  const offered = new Set((accept ?? '').split(',').map((e) => e.split(';')[0]!.trim().toLowerCase()))
  return offered.has('br') ? 'br' : offered.has('gzip') ? 'gzip' : offered.has('deflate') ? 'deflate' : null
}

function compressor(encoding: 'br' | 'gzip' | 'deflate', level: number) {
  if (encoding === 'br') return createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: level } })
  return encoding === 'gzip' ? createGzip({ level }) : createDeflate({ level })
}

export function createHandler(deps: HandlerDeps) {
  const slots: Record<UserName, ReturnType<typeof limitConcurrency>> = { svc: limitConcurrency(deps.concurrency.svc), analyst: limitConcurrency(deps.concurrency.analyst) }
  const running = new Set<string>()
  const log = deps.log

  const sendException = (req: IncomingMessage, res: ServerResponse, err: unknown) => {
    const e = err instanceof ClickHouseException ? err : fromChdb(err)
    if (e.code === 1002) log.error({ err }, 'clickhouse http: unexpected error')
    if (res.headersSent) {
      // Output is already on its way with 200: the exception ends the body, as a server writes it.
      if (!res.writableEnded) res.end(`\n${exceptionText(e, deps.server.version)}\n`)
      return
    }
    res.statusCode = httpStatusFor(e.code)
    res.setHeader('X-ClickHouse-Exception-Code', String(e.code))
    res.setHeader('Content-Type', 'text/plain; charset=UTF-8')
    if (e.code === 194) res.setHeader('WWW-Authenticate', 'Basic realm="ClickHouse server HTTP API", charset="UTF-8"')
    // An unread body would be read as the next request: close instead of draining an upload of any size.
    if (!req.complete) res.setHeader('Connection', 'close')
    res.end(`${exceptionText(e, deps.server.version)}\n`)
  }

  async function answer(req: IncomingMessage, res: ServerResponse, outcome: Outcome, format: string, queryId: string, http: { enableCompression: boolean; compressionLevel: number }) {
    res.setHeader('X-ClickHouse-Query-Id', queryId)
    res.setHeader('X-ClickHouse-Format', format)
    res.setHeader('X-ClickHouse-Timezone', deps.server.timezone)
    res.setHeader('X-ClickHouse-Summary', summaryHeader(outcome.summary))
    res.setHeader('Content-Type', contentTypeOf(format))
    const encoding = http.enableCompression ? chooseEncoding(req.headers['accept-encoding']) : null
    let out: Writable = res
    if (encoding) {
      res.setHeader('Content-Encoding', encoding)
      const z = compressor(encoding, http.compressionLevel)
      z.pipe(res)
      out = z
    }
    res.statusCode = 200
    if (outcome.kind === 'whole') {
      if (!encoding) res.setHeader('Content-Length', outcome.bytes.byteLength)
      out.end(outcome.bytes)
      return
    }
    let gone = false
    const onClose = () => {
      if (!res.writableFinished) {
        gone = true
        outcome.cancel()
      }
    }
    res.once('close', onClose)
    const write = (chunk: Uint8Array) => (out.write(chunk) ? Promise.resolve() : new Promise<void>((resolve) => {
      const done = () => {
        out.off('drain', done)
        res.off('close', done)
        resolve()
      }
      out.once('drain', done)
      res.once('close', done)
    }))
    try {
      await write(outcome.first)
      for (;;) {
        if (gone) return
        const next = await outcome.rest.next()
        if (next.done || gone) break
        await write(next.value.raw())
      }
      if (!gone) out.end()
    } catch (err) {
      // After the first chunk the status is sent: the exception text closes the body.
      if (!gone) out.end(`\n${exceptionText(fromChdb(err), deps.server.version)}\n`)
    } finally {
      res.off('close', onClose)
      if (gone) outcome.cancel()
    }
  }

  async function query(req: IncomingMessage, res: ServerResponse, url: URL) {
    let clientGone = false
    res.once('close', () => {
      if (!res.writableFinished) clientGone = true
    })
    const headers = { get: (name: string) => { const v = req.headers[name]; return Array.isArray(v) ? v[0] : v } }
    const user = authenticate(deps.users, presentedCredentials(headers, url.searchParams), deps.credentialsHint)
    const params = readRequestParams(url.searchParams, headers)
    const method = req.method ?? 'GET'
    if (method === 'POST' && req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)
      throw new ClickHouseException(381, 'The Transfer-Encoding is not chunked and there is no Content-Length header for POST request', 'HTTP_LENGTH_REQUIRED')
    const maxQuerySize = maxQuerySizeOf(params, user.name, deps.server.maxQuerySize)
    const prefix = params.query === '' ? '' : `${params.query}\n`
    // The analyst cannot insert, so past max_query_size nothing of the body can matter: it is not read.
    const cutAt = user.name === 'analyst' ? Math.max(0, maxQuerySize + 1 - Buffer.byteLength(prefix)) : undefined
    const body = await readBody(req, { maxBytes: deps.maxBodyBytes, cutAt })
    const text = prefix === '' ? body.bytes : Buffer.concat([Buffer.from(prefix), body.bytes])
    const plan = planQuery({ user: user.name, method, params, text, cut: body.cut, maxQuerySize, analystLimits: deps.analystLimits })
    const queryId = params.queryId ?? randomUUID()
    const release = claimQueryId(running, queryId)
    try {
      await slots[user.name](async () => {
        if (clientGone) throw exception('QUERY_WAS_CANCELLED', 'The client went away before the query started')
        const outcome = await deps.executor.run(plan.run)
        await answer(req, res, outcome, plan.format, queryId, params.http)
      })
    } finally {
      release()
    }
    log.debug({ user: user.name, kind: plan.kind, queryId }, 'clickhouse http query')
  }

  return (req: IncomingMessage, res: ServerResponse): void => {
    res.setHeader('X-ClickHouse-Server-Display-Name', DISPLAY_NAME)
    let url: URL
    try {
      url = new URL(req.url ?? '/', 'http://localhost')
    } catch {
      res.statusCode = 400
      res.end('Bad request URL\n')
      return
    }
    // `/` without a query is the server's greeting, as ClickHouse's default handler answers it.
    const greeting = url.pathname === '/' && (req.method === 'GET' || req.method === 'HEAD') && !url.searchParams.has('query')
    if (HEALTH_PATHS.has(url.pathname) || greeting) {
      res.setHeader('Content-Type', 'text/html; charset=UTF-8')
      res.end('Ok.\n')
      return
    }
    if (url.pathname !== '/') {
      res.statusCode = 404
      res.setHeader('Content-Type', 'text/plain; charset=UTF-8')
      res.end(`There is no handle ${url.pathname}\n\nUse / or /ping for health checks.\nOr /replicas_status for more sophisticated health checks.\n\nSend queries from your program with POST method or GET /?query=...\n`)
      return
    }
    query(req, res, url).catch((err: unknown) => {
      try {
        sendException(req, res, err)
      } catch (sendErr) {
        log.warn({ err: sendErr }, 'clickhouse http: could not send an exception')
        res.destroy()
      }
    })
  }
}
