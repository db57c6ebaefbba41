/**
 * The address a request came from, for per-address limits: the socket's peer, or,
 * when the operator says the API sits behind n trusted proxies
 * (SVC_TRUSTED_PROXY_HOPS), the address the outermost of them appended to
 * X-Forwarded-For. Entries further left are whatever the client claimed.
 */
import type { Context } from 'hono'
import { getConnInfo } from '@hono/node-server/conninfo'

export function clientAddressFrom(socketAddress: string | undefined, forwardedFor: string | undefined, trustedHops: number): string {
  const socket = socketAddress || 'unknown'
  if (trustedHops <= 0 || !forwardedFor) return socket
  const hops = forwardedFor.split(',').map((s) => s.trim()).filter(Boolean)
  return hops.length ? hops[Math.max(0, hops.length - trustedHops)]! : socket
}

export function clientAddress(c: Context, trustedHops: number): string {
  let socket: string | undefined
  try {
    socket = getConnInfo(c).remote.address
  } catch {
    // No Node socket (app.request() in tests): one shared bucket.
  }
  return clientAddressFrom(socket, c.req.header('x-forwarded-for'), trustedHops)
}
