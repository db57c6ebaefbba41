/**
 * A size limit on every request body of the read API, checked before any route
 * reads it: by content-length when announced, else while the body streams in
 * (hono's bodyLimit), so a chunked upload stops at the limit instead of being
 * buffered whole. The alignment upload has its own, larger limit.
 */
import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { matchedRoutes } from 'hono/route'
import { payloadTooLarge } from '@svc/shared/http/errors'
import type { RouteSpec } from '../access.js'

const limit = (maxBytes: number, what: string) =>
  bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw payloadTooLarge(`${what} is limited to ${maxBytes} bytes`, maxBytes)
    },
  })

export function bodyLimits(opts: { maxBytes: number; upload: { route: RouteSpec; maxBytes: number } }): MiddlewareHandler {
  const json = limit(opts.maxBytes, 'the request body')
  const upload = limit(opts.upload.maxBytes, 'an upload (document and multipart framing)')
  const { method, path } = opts.upload.route
  // Routes are matched before any middleware runs, so the upload is known by its pattern, not by parsing the path.
  return (c, next) => (matchedRoutes(c).some((r) => r.method === method && r.path === path) ? upload(c, next) : json(c, next))
}
