/**
 * The engines' one learned piece: an L2-regularised logistic regression over named signals, fit
 * offline on the labelled development sets (`pnpm eval:combiner --write`) and applied per claim
 * (reliability/combiner.ts). A fit records its signals' names in order, so a fit made on other
 * signals is refused rather than misread.
 */

export interface LogisticFit {
  signals: readonly string[]
  mean: readonly number[]
  sd: readonly number[]
  weights: readonly number[]
  bias: number
}

/** One labelled row for a fit: its signals and its label. */
export interface Labelled {
  x: readonly number[]
  y: boolean
}

/** The fit's probability of the label for these signals. */
export function probability(f: LogisticFit, x: readonly number[]): number {
  let z = f.bias
  for (let k = 0; k < x.length; k++) z += (f.weights[k]! * (x[k]! - f.mean[k]!)) / f.sd[k]!
  return 1 / (1 + Math.exp(-z))
}

/** A fit reads these signals (same names, same order). */
export const fitsSignals = (f: LogisticFit, signals: readonly string[]) => f.signals.length === signals.length && f.signals.every((s, i) => s === signals[i])

/**
 * Standardised signals, full-batch Adam from zero weights: the same rows in the same order give the same fit.
 * Offline only, never on a request path.
 */
export function fitLogistic(data: Labelled[], signals: readonly string[], l2 = 1e-3, epochs = 400): LogisticFit {
  const d = signals.length
  if (data.some((e) => e.x.length !== d)) throw new Error(`every row needs ${d} signals`)
  const mean = new Array<number>(d).fill(0)
  const sd = new Array<number>(d).fill(0)
  for (const e of data) for (let k = 0; k < d; k++) mean[k]! += e.x[k]! / data.length
  for (const e of data) for (let k = 0; k < d; k++) sd[k]! += (e.x[k]! - mean[k]!) ** 2 / data.length
  // (A signal that never varies, up to rounding, is not scaled: its weight stays 0.)
  for (let k = 0; k < d; k++) sd[k] = Math.sqrt(sd[k]!) < 1e-6 ? 1 : Math.sqrt(sd[k]!)
  const xs = data.map((e) => e.x.map((v, k) => (v - mean[k]!) / sd[k]!))
  const w = new Array<number>(d + 1).fill(0)
  const m = new Array<number>(d + 1).fill(0)
  const v = new Array<number>(d + 1).fill(0)
  for (let t = 1; t <= epochs; t++) {
    const g = new Array<number>(d + 1).fill(0)
    xs.forEach((z, i) => {
      let s = w[d]!
      for (let k = 0; k < d; k++) s += w[k]! * z[k]!
      const err = 1 / (1 + Math.exp(-s)) - (data[i]!.y ? 1 : 0)
      for (let k = 0; k < d; k++) g[k]! += (err * z[k]!) / xs.length
      g[d]! += err / xs.length
    })
    for (let k = 0; k <= d; k++) {
      const gk = g[k]! + (k < d ? l2 * w[k]! : 0)
      m[k] = 0.9 * m[k]! + 0.1 * gk
      v[k] = 0.999 * v[k]! + 0.001 * gk * gk
      w[k]! -= (0.05 * (m[k]! / (1 - 0.9 ** t))) / (Math.sqrt(v[k]! / (1 - 0.999 ** t)) + 1e-8)
    }
  }
  const round = (x: number) => Math.round(x * 1e6) / 1e6
  return { signals, mean: mean.map(round), sd: sd.map(round), weights: w.slice(0, d).map(round), bias: round(w[d]!) }
}
