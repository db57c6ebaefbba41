import { randomUUID } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'

declare module 'hono' {
  interface ContextVariableMap {
    requestId: string
  }
}

/** Honours a caller's x-request-id (so logs join across services), else makes one; echoed in the response. */
export const requestId = (): MiddlewareHandler => async (c, next) => {
  const given = c.req.header('x-request-id')
  const id = given && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID()
  c.set('requestId', id)
  c.header('x-request-id', id)
  await next()
}
