import type { MiddlewareHandler } from 'hono'
import type { Logger } from '@svc/shared/log'

/**
 * One debug line per request: method, path, status, duration and request id. Never
 * headers or bodies, which carry credentials and secrets.
 */
export const requestLog =
  (log: Logger): MiddlewareHandler =>
  async (c, next) => {
    const t0 = performance.now()
    await next()
    log.debug({ method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - t0), request_id: c.get('requestId') }, 'request')
  }
