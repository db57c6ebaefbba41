/**
 * Which addresses an outbound call that carries an organization's secret may reach:
 * public unicast ones only. Everything else (loopback, private, link-local with the
 * cloud metadata service at 169.254.169.254, CGNAT, unique-local, multicast, ...)
 * reaches this machine or its network rather than a provider, so a stored
 * credential pointing there would let a tenant read internal services with the
 * service's network position. IPv6 forms that carry an IPv4 address (mapped, NAT64,
 * 6to4) are judged by the address they carry.
 */
import { isIPv4, isIPv6 } from 'node:net'

type Range = readonly [prefix: readonly number[], bits: number, reason: string]

const V4: readonly Range[] = [
  [[0, 0, 0, 0], 8, 'unspecified'],
  [[10, 0, 0, 0], 8, 'private'],
  [[100, 64, 0, 0], 10, 'shared (CGNAT)'],
  [[127, 0, 0, 0], 8, 'loopback'],
  [[169, 254, 0, 0], 16, 'link-local'],
  [[172, 16, 0, 0], 12, 'private'],
  [[192, 0, 0, 0], 24, 'special-purpose'],
  [[192, 168, 0, 0], 16, 'private'],
  [[198, 18, 0, 0], 15, 'special-purpose'],
  [[224, 0, 0, 0], 4, 'multicast'],
  [[240, 0, 0, 0], 4, 'reserved'],
]

const V6: readonly Range[] = [
  [[0xfc], 7, 'unique-local'],
  [[0xfe, 0x80], 10, 'link-local'],
  [[0xfe, 0xc0], 10, 'site-local'],
  [[0xff], 8, 'multicast'],
  [[0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48, 'local-use NAT64'],
]

function inRange(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff
    if (((bytes[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false
  }
  return true
}

const judge = (bytes: readonly number[], ranges: readonly Range[]): string | null => ranges.find(([p, b]) => inRange(bytes, p, b))?.[2] ?? null

function v4Bytes(ip: string): number[] {
  return ip.split('.').map(Number)
}

/** 16 bytes of a valid IPv6 address (zone id already removed). */
function v6Bytes(ip: string): number[] {
  let text = ip
  const tail: number[] = []
  const lastColon = text.lastIndexOf(':')
  if (text.includes('.', lastColon)) {
    tail.push(...v4Bytes(text.slice(lastColon + 1)))
    text = text.slice(0, lastColon + 1) + '0:0'
  }
  const [head, rest] = text.split('::') as [string, string | undefined]
  const groups = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : [])
  const hi = groups(head)
  const lo = rest === undefined ? [] : groups(rest)
  const words = [...hi, ...Array<number>(8 - hi.length - lo.length).fill(0), ...lo]
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff])
  if (tail.length) bytes.splice(12, 4, ...tail)
  return bytes
}

function v6Reason(bytes: number[]): string | null {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0)
  const embedded = (at: number) => judge(bytes.slice(at, at + 4), V4)
  if (zeros(0, 15)) return bytes[15] === 0 ? 'unspecified' : bytes[15] === 1 ? 'loopback' : 'IPv4-compatible'
  if (zeros(0, 12)) return 'IPv4-compatible'
  // ::ffff:a.b.c.d (mapped) and 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address they carry.
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return embedded(12)
  if (inRange(bytes, [0x00, 0x64, 0xff, 0x9b], 32) && zeros(4, 12)) return embedded(12)
  // 6to4: 2002:AABB:CCDD::/48 is routed to the IPv4 address AA.BB.CC.DD.
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return embedded(2)
  return judge(bytes, V6)
}

/** Why an address is not a public unicast one ('loopback', 'private', ...), or null when it is. */
export function nonPublicReason(address: string): string | null {
  const ip = address.replace(/%.*$/, '')
  if (isIPv4(ip)) return judge(v4Bytes(ip), V4)
  if (isIPv6(ip)) return v6Reason(v6Bytes(ip))
  return 'not an IP address'
}

/** The host of a URL as the socket layer sees it: IPv6 literals without brackets. */
export const urlHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1')

/**
 * For a URL whose host is an IP literal: why that address is refused, or null when
 * it is public. Names answer null here: what a name resolves to is checked when a
 * connection is made (egress.ts), since it can change between the two.
 */
export function literalHostReason(url: string | URL): string | null {
  const host = urlHost(typeof url === 'string' ? new URL(url) : url)
  return isIPv4(host) || isIPv6(host) ? nonPublicReason(host) : null
}
