import { readFileSync } from 'node:fs'

/** Small helpers shared by the benchmarks: percentiles and aligned output. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[i]!
}

export function summarize(values: number[]) {
  const s = [...values].sort((a, b) => a - b)
  return { n: s.length, p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN }
}

export const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a')

export function progress(msg: string) {
  process.stderr.write(`  · ${msg}\n`)
}

export function table(rows: Array<[string, string]>) {
  const w = Math.max(...rows.map((r) => r[0].length))
  for (const [k, v] of rows) process.stdout.write(`  ${k.padEnd(w)}  ${v}\n`)
}

/** Peak resident set size of a process, from /proc (Linux). */
export function peakRssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const m = /VmHWM:\s+(\d+) kB/.exec(status)
    return m ? Number(m[1]) / 1024 : NaN
  } catch {
    return NaN
  }
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux); NaN elsewhere. */
export function cpuMs(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces, inside parentheses): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // USER_HZ is 100 on Linux
  } catch {
    return NaN
  }
}
