/**
 * Request metrics of the HTTP apps (ingest, read API): one histogram of request
 * durations labelled by route pattern and status, and GET /metrics over registries.
 */
import type { Context, Handler, MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import { Histogram, Registry } from 'prom-client'

/**
 * The route pattern that answered a request (`/v1/workspaces/:ws/sdk-config`), or
 * `unmatched` when no route did: never the raw path, which any caller could make
 * unique and so create series without bound. Middleware entries (method ALL) are
 * skipped; the last handler matched is the route's own.
 */
export function routeLabel(c: Context): string {
  const routes = matchedRoutes(c)
  for (let i = routes.length - 1; i >= 0; i--) if (routes[i]!.method !== 'ALL') return routes[i]!.path
  return 'unmatched'
}

/** A `<name>{route,status}` duration histogram in `registry` (a new one by default), and the middleware that observes it. */
export function requestMetrics(name: string, help: string, registry = new Registry()): { registry: Registry; observe: MiddlewareHandler } {
  const histogram = new Histogram({
    name,
    help,
    labelNames: ['route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  })
  const observe: MiddlewareHandler = async (c, next) => {
    const done = histogram.startTimer()
    await next()
    done({ route: routeLabel(c), status: String(c.res.status) })
  }
  return { registry, observe }
}

/** GET /metrics: the registries merged, in Prometheus text format. */
export function metricsHandler(...registries: Registry[]): Handler {
  return async (c) => {
    const all = Registry.merge(registries)
    return c.text(await all.metrics(), 200, { 'content-type': all.contentType })
  }
}
