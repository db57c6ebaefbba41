/**
 * pnpm bench:start [--runs 3] [--load-seconds 10] [--modes tsx,compiled]
 *
 * How the all-in-one starts and idles as TypeScript through tsx (`tsx
 * services/all-in-one/src/main.ts`, what `pnpm start` ran before) and as compiled
 * JavaScript (`node scripts/start.mjs all-in-one`, what it runs now). First the
 * build alone, timed (into a directory of its own, which every compiled run then
 * finds current). Modes alternate run by run, each on a fresh data directory
 * (embedded bus):
 * - wall time from spawn to both /health answering, and the CPU the process tree
 *   used by then;
 * - resident memory of the whole process tree (tsx's CLI keeps a parent process) 8 s
 *   after that;
 * - under load (8 clients posting 100 flat LLM spans per request for
 *   `--load-seconds`): spans accepted per second, the tree's CPU per accepted span,
 *   and its peak resident memory (sampled every 500 ms).
 * Prints one row per run, then each mode's medians.
 */
import { spawn, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { exited, freePort, REPO_ROOT, startScript } from '../support/process.js'
import { cpuMs, fmt, progress, summarize, table } from './stats.js'

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '3' }, 'load-seconds': { type: 'string', default: '10' }, modes: { type: 'string', default: 'tsx,compiled' } } })
const RUNS = Number(args.runs)
const LOAD_MS = Number(args['load-seconds']) * 1000
const KEY = 'dr_benchStartKey00000000000000000000000001'
const COMMANDS: Record<string, string[]> = {
  tsx: [join(REPO_ROOT, 'node_modules/.bin/tsx'), 'services/all-in-one/src/main.ts'],
  compiled: [process.execPath, ...startScript('start').flags, 'scripts/start.mjs', 'all-in-one'],
}
const modes = args.modes.split(',').map((m) => m.trim())
for (const m of modes) if (!COMMANDS[m]) throw new Error(`--modes: unknown mode ${m} (known: ${Object.keys(COMMANDS).join(', ')})`)
const buildDir = mkdtempSync(join(tmpdir(), 'svc-bench-build-'))

interface Run { mode: string; healthMs: number; startCpuMs: number; idleRssMb: number; spansPerS: number; cpuUsPerSpan: number; peakRssMb: number }

/** A process and its descendants, from ps. */
function tree(root: number): number[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' }).trim().split('\n').map((l) => l.trim().split(/\s+/).map(Number))
  const pids = [root]
  for (let i = 0; i < pids.length; i++) for (const [pid, ppid] of rows) if (ppid === pids[i]) pids.push(pid!)
  return pids
}
function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
  } catch {
    return 0 // ended between ps and the read
  }
}
const treeRss = (root: number) => tree(root).reduce((a, p) => a + rssMb(p), 0)
const treeCpu = (root: number) => tree(root).reduce((a, p) => a + (Number.isFinite(cpuMs(p)) ? cpuMs(p) : 0), 0)

async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok
  } catch {
    return false
  }
}

/** 8 clients posting 100-span traces until stopped; spans answered 202. */
function load(ingestUrl: string): { stop(): Promise<number> } {
  let stopped = false
  let accepted = 0
  const now = BigInt(Date.now()) * 1_000_000n
  const client = async (w: number) => {
    for (let n = 0; !stopped; n++) {
      const traceId = `${w.toString(16).padStart(8, '0')}${n.toString(16).padStart(8, '0')}`.padEnd(32, 'a')
      const spans = Array.from({ length: 100 }, (_, i) => ({
        trace_id: traceId, span_id: (i + 1).toString(16).padStart(16, '0'), ...(i > 0 ? { parent_span_id: '0000000000000001' } : {}),
        name: i > 0 ? 'chat gpt-4o' : 'agent run', status_code: 'OK',
        start_time_unix_ns: String(now + BigInt(i) * 1_000_000n), end_time_unix_ns: String(now + BigInt(i + 20) * 1_000_000n),
        attributes: { 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 120 + i, 'gen_ai.usage.output_tokens': 30 },
      }))
      const res = await fetch(`${ingestUrl}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-api-key': KEY }, body: JSON.stringify(spans) })
      await res.arrayBuffer()
      if (res.status === 202) accepted += spans.length
    }
  }
  const clients = Array.from({ length: 8 }, (_, w) => client(w))
  return {
    async stop() {
      stopped = true
      await Promise.all(clients)
      return accepted
    },
  }
}

async function runOnce(mode: string): Promise<Run> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-start-'))
  const [ingestPort, apiPort, clickhousePort] = [await freePort(), await freePort(), await freePort()]
  const env = {
    ...process.env, SVC_BUILD_DIR: buildDir, SVC_BUS: 'embedded', KAFKA_BROKERS: '', REDIS_URL: '', CLICKHOUSE_URL: '', SVC_DATA_DIR: dataDir, SVC_HOST: '127.0.0.1',
    SVC_INGEST_PORT: String(ingestPort), SVC_API_PORT: String(apiPort), SVC_CLICKHOUSE_HTTP_PORT: String(clickhousePort),
    SVC_INIT_ORG_SLUG: 'bench', SVC_INIT_WORKSPACE_SLUG: 'bench', SVC_INIT_API_KEY: KEY, SVC_INIT_USER_PASSWORD: 'bench-password', SVC_QUIET_BOOTSTRAP: 'true', LOG_LEVEL: 'warn',
  }
  const [cmd, ...cmdArgs] = COMMANDS[mode]!
  const t0 = performance.now()
  const child = spawn(cmd!, cmdArgs, { cwd: REPO_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  const ingestUrl = `http://127.0.0.1:${ingestPort}`
  try {
    while (!((await healthy(`http://127.0.0.1:${apiPort}/health`)) && (await healthy(`${ingestUrl}/health`)))) {
      if (child.exitCode !== null) throw new Error(`${mode}: the service exited (${child.exitCode}) before answering /health:\n${stderr}`)
      await new Promise((r) => setTimeout(r, 50))
    }
    const healthMs = performance.now() - t0
    const startCpuMs = treeCpu(child.pid!)
    await new Promise((r) => setTimeout(r, 8000))
    const idleRssMb = treeRss(child.pid!)

    const cpuBefore = treeCpu(child.pid!)
    let peakRssMb = 0
    const sampler = setInterval(() => (peakRssMb = Math.max(peakRssMb, treeRss(child.pid!))), 500)
    const t1 = performance.now()
    const l = load(ingestUrl)
    await new Promise((r) => setTimeout(r, LOAD_MS))
    const accepted = await l.stop()
    const seconds = (performance.now() - t1) / 1000
    clearInterval(sampler)
    const cpuUsPerSpan = ((treeCpu(child.pid!) - cpuBefore) * 1000) / accepted
    return { mode, healthMs, startCpuMs, idleRssMb, spansPerS: accepted / seconds, cpuUsPerSpan, peakRssMb: Math.max(peakRssMb, treeRss(child.pid!)) }
  } finally {
    child.kill('SIGTERM')
    await exited(child)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const row = (r: Run) =>
  `start ${fmt(r.healthMs / 1000, 2)} s, start CPU ${fmt(r.startCpuMs / 1000, 2)} s, idle RSS ${fmt(r.idleRssMb)} MB | load ${fmt(r.spansPerS)} spans/s, ${fmt(r.cpuUsPerSpan)} µs CPU/span, peak RSS ${fmt(r.peakRssMb)} MB`
const runs: Run[] = []
try {
  if (modes.includes('compiled')) {
    const t0 = performance.now()
    execFileSync(process.execPath, ['scripts/start.mjs', '--build-only', 'all-in-one'], { cwd: REPO_ROOT, env: { ...process.env, SVC_BUILD_DIR: buildDir }, stdio: 'ignore' })
    process.stdout.write(`  build      ${fmt(performance.now() - t0)} ms (node scripts/start.mjs --build-only all-in-one, from nothing)\n`)
  }
  for (let i = 0; i < RUNS; i++) {
    for (const mode of modes) {
      progress(`${mode}, run ${i + 1} of ${RUNS}`)
      const r = await runOnce(mode)
      runs.push(r)
      process.stdout.write(`  ${mode.padEnd(9)} ${row(r)}\n`)
    }
  }
} finally {
  rmSync(buildDir, { recursive: true, force: true })
}
process.stdout.write('\nmedians\n')
const median = (xs: number[]) => summarize(xs).p50
table(modes.map((mode) => {
  const of = runs.filter((r) => r.mode === mode)
  const m = (k: keyof Omit<Run, 'mode'>) => median(of.map((r) => r[k]))
  return [mode, row({ mode, healthMs: m('healthMs'), startCpuMs: m('startCpuMs'), idleRssMb: m('idleRssMb'), spansPerS: m('spansPerS'), cpuUsPerSpan: m('cpuUsPerSpan'), peakRssMb: m('peakRssMb') })]
}))
