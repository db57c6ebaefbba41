import type { Context, ErrorHandler, NotFoundHandler } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { Logger } from 'pino'

/**
 * The one error type routes throw. Every error response of both APIs has the body
 * { error: <code>, message: <sentence>, detail?: <structured> }; `detail` carries
 * e.g. the accepted values of an invalid query parameter.
 */
export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly detail?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message)
  }
}

export const badRequest = (message: string, detail?: unknown) => new HttpError(400, 'bad_request', message, detail)
export const unauthorized = (message = 'missing or invalid credentials') => new HttpError(401, 'unauthorized', message)
export const forbidden = (message = 'your role does not allow this') => new HttpError(403, 'forbidden', message)
export const notFound = (message = 'not found') => new HttpError(404, 'not_found', message)
export const conflict = (message: string, detail?: unknown) => new HttpError(409, 'conflict', message, detail)
export const unprocessable = (message: string, detail?: unknown) => new HttpError(422, 'unprocessable_entity', message, detail)
export const payloadTooLarge = (message: string, maxBytes: number) => new HttpError(413, 'payload_too_large', message, { max_bytes: maxBytes })

export function errorResponse(c: Context, err: HttpError) {
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) c.header(k, v)
  return c.json({ error: err.code, message: err.message, ...(err.detail === undefined ? {} : { detail: err.detail }) }, err.status)
}

/** app.onError: known errors keep their status; anything else is logged and becomes a JSON 500. */
export function jsonErrorHandler(log: Logger): ErrorHandler {
  return (err, c) => {
    if (err instanceof HttpError) return errorResponse(c, err)
    log.error({ err, method: c.req.method, path: c.req.path }, 'unhandled error')
    return c.json({ error: 'internal', message: 'internal error' }, 500)
  }
}

export const jsonNotFound: NotFoundHandler = (c) => c.json({ error: 'not_found', message: `no route for ${c.req.method} ${c.req.path}` }, 404)
