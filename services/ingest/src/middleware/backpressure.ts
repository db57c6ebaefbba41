/**
 * In-flight byte budget: the bytes of requests that are being read or have been
 * accepted but are not yet durable on the bus. When the bus slows down, requests
 * pile up here; past the budget ingest answers 503 + Retry-After (OTLP exporters
 * retry on it) instead of growing memory without bound.
 */
import { HttpError } from '@svc/shared/http/errors'
import type { IngestMetrics } from '../metrics.js'

/** 503s carry Retry-After: nothing was acknowledged, the client should send the same batch again. */
export const unavailable = (message: string) => new HttpError(503, 'unavailable', message, undefined, { 'Retry-After': '1' })

export interface Reservation {
  /** Changes the reserved amount (e.g. from the wire size to the decompressed size); false if that exceeds the budget. */
  resize(bytes: number): boolean
  /** Returns the bytes; idempotent. */
  release(): void
}

export class InflightBudget {
  private used = 0
  private active = 0
  private closing = false
  private idle: Array<() => void> = []

  constructor(readonly maxBytes: number, private readonly metrics?: IngestMetrics) {}

  get inflightBytes(): number {
    return this.used
  }

  /** True once drain() was called: every new reservation is refused. */
  get isClosing(): boolean {
    return this.closing
  }

  /**
   * Reserves `bytes`, or returns null when that would pass the budget. A request
   * is always let through when nothing else is in flight, so a budget smaller than
   * one body cannot block ingest for good.
   */
  reserve(bytes: number): Reservation | null {
    if (this.closing || !this.fits(bytes, 0)) return null
    let held = bytes
    let released = false
    this.active++
    this.add(held)
    return {
      resize: (next) => {
        if (released) return false
        if (next > held && !this.fits(next, held)) return false
        this.add(next - held)
        held = next
        return true
      },
      release: () => {
        if (released) return
        released = true
        this.add(-held)
        if (--this.active === 0) for (const wake of this.idle.splice(0)) wake()
      },
    }
  }

  /**
   * Shutdown: refuse new requests, then wait (up to `timeoutMs`) until every
   * admitted request's produce has settled, so nothing acknowledged is lost and
   * nothing in flight is cut off when the bus closes.
   */
  async drain(timeoutMs: number): Promise<boolean> {
    this.closing = true
    if (this.active === 0) return true
    let timer: NodeJS.Timeout | undefined
    const drained = await Promise.race([
      new Promise<true>((resolve) => this.idle.push(() => resolve(true))),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ])
    clearTimeout(timer)
    return drained
  }

  private fits(bytes: number, alreadyHeld: number): boolean {
    const others = this.used - alreadyHeld
    return others === 0 || others + bytes <= this.maxBytes
  }

  private add(delta: number) {
    this.used += delta
    if (this.metrics) this.metrics.inflight_bytes = this.used
  }
}
