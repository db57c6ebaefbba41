/** Axis arithmetic for the waterfall and charts: round tick steps and linear scales. */

/** A step of 1, 2 or 5 times a power of ten giving about `count` ticks over [0, max]. */
export function niceStep(max: number, count = 5): number {
  if (!(max > 0)) return 1
  const raw = max / Math.max(1, count)
  const pow = 10 ** Math.floor(Math.log10(raw))
  const m = raw / pow
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * pow
}

/** Tick values from `min` to at least `max`, on round steps. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min]
  const step = niceStep(max - min, count)
  const first = Math.floor(min / step) * step
  const out: number[] = []
  // Rounding keeps 0.1 + 0.2 from printing as 0.30000000000000004.
  for (let v = first; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)))
  if (out[out.length - 1]! < max) out.push(Number((out[out.length - 1]! + step).toPrecision(12)))
  return out
}

/** Maps [d0, d1] onto [r0, r1]; a flat domain maps to the middle of the range. */
export function linearScale(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  if (d1 === d0) return () => (r0 + r1) / 2
  const k = (r1 - r0) / (d1 - d0)
  return (v) => r0 + (v - d0) * k
}
