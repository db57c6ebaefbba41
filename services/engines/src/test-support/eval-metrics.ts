/**
 * The statistics of the engine evaluation, as pure functions: precision/recall/F1
 * from counts, Spearman's rank correlation (average ranks for ties), and the
 * reliability diagram of confidences with its expected calibration error.
 */

export interface Counts {
  tp: number
  fp: number
  fn: number
  tn: number
}

export const ratio = (a: number, b: number, empty = 1) => (b ? a / b : empty)

export function prf(c: Counts): { precision: number; recall: number; f1: number } {
  const precision = ratio(c.tp, c.tp + c.fp)
  const recall = ratio(c.tp, c.tp + c.fn)
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 }
}

/** 1-based ranks, ties sharing the mean of the ranks they span. */
function ranks(xs: number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0])
  const out = new Array<number>(xs.length)
  for (let i = 0; i < order.length; ) {
    let j = i
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++
    for (let k = i; k <= j; k++) out[order[k]![1]] = (i + j) / 2 + 1
    i = j + 1
  }
  return out
}

/** Spearman's rho: Pearson's correlation of the ranks. NaN with fewer than 3 pairs or a constant side. */
export function spearman(a: number[], b: number[]): number {
  if (a.length !== b.length || a.length < 3) return NaN
  const ra = ranks(a)
  const rb = ranks(b)
  const mean = (ra.length + 1) / 2
  let num = 0
  let da = 0
  let db = 0
  for (let i = 0; i < ra.length; i++) {
    num += (ra[i]! - mean) * (rb[i]! - mean)
    da += (ra[i]! - mean) ** 2
    db += (rb[i]! - mean) ** 2
  }
  return da && db ? num / Math.sqrt(da * db) : NaN
}

export interface CalibrationBin {
  /** Lower bound of the bin (confidence ≥ from). */
  from: number
  n: number
  meanConfidence: number
  accuracy: number
}

/**
 * Reliability diagram over `bins` equal-width confidence bins, and the expected
 * calibration error: the n-weighted mean gap between a bin's accuracy and its
 * mean confidence. A calibrated engine is right about 90% of the time at 0.9.
 */
export function calibration(points: Array<{ confidence: number; correct: boolean }>, bins = 10): { bins: CalibrationBin[]; ece: number } {
  const acc = Array.from({ length: bins }, (_, i) => ({ from: i / bins, n: 0, conf: 0, right: 0 }))
  for (const p of points) {
    const b = acc[Math.min(bins - 1, Math.max(0, Math.floor(p.confidence * bins)))]!
    b.n++
    b.conf += p.confidence
    if (p.correct) b.right++
  }
  let ece = 0
  const out: CalibrationBin[] = []
  for (const b of acc) {
    if (!b.n) continue
    const meanConfidence = b.conf / b.n
    const accuracy = b.right / b.n
    ece += (b.n / points.length) * Math.abs(accuracy - meanConfidence)
    out.push({ from: b.from, n: b.n, meanConfidence, accuracy })
  }
  return { bins: out, ece }
}
