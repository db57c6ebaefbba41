/**
 * The Python test environment of services/sdk-python: a virtual environment under
 * node_modules/.cache/svc-sdk-python/, made on first use with `python3 -m venv` and
 * pip, holding the SDK (editable) beside everything in its requirements-test.txt,
 * checked with `pip check`. The wheels come from PyPI once into a wheelhouse in the
 * user's cache (~/.cache/svc-sdk-python/wheels; pip's own HTTP cache keeps nothing
 * behind this machine's registry proxy), so a fresh clone on the same machine (CI)
 * installs offline in seconds.
 * It is made again when that file, the package's pyproject.toml or the interpreter
 * changes. `.ci/run` prepares it up front: `pnpm exec tsx tests/support/python.ts`.
 * PYTHON chooses the interpreter (default python3).
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { REPO_ROOT } from './process.js'

export const SDK_PYTHON_DIR = join(REPO_ROOT, 'services/sdk-python')
const CACHE_DIR = join(REPO_ROOT, 'node_modules/.cache/svc-sdk-python')
const REQUIREMENTS = join(SDK_PYTHON_DIR, 'requirements-test.txt')
const WHEELS = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'svc-sdk-python', 'wheels')
const LOCK_STALE_MS = 15 * 60_000

export interface RunResult {
  code: number | null
  output: string
}

/** Runs a command to its end, stdout and stderr interleaved in `output`. */
export function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? REPO_ROOT, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined
    child.once('error', reject)
    child.once('close', (code) => {
      if (timer) clearTimeout(timer)
      resolve({ code, output })
    })
  })
}

async function mustRun(cmd: string, args: string[], what: string): Promise<void> {
  const r = await run(cmd, args, { timeoutMs: 15 * 60_000 })
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}): ${cmd} ${args.join(' ')}\n${r.output}`)
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Takes a directory lock (mkdir is atomic), waiting for another holder; a lock older than LOCK_STALE_MS is broken. */
async function withLock<T>(lock: string, fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const held = statSync(lock, { throwIfNoEntry: false })
      if (held && Date.now() - held.mtimeMs > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true })
      else await sleep(500)
    }
  }
  try {
    return await fn()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

/** The test environment's interpreter, made first if needed. */
export async function pythonVenv(): Promise<{ python: string; dir: string }> {
  const base = process.env.PYTHON || 'python3'
  const version = await run(base, ['-c', 'import sys; print(sys.executable, sys.version)'])
  if (version.code !== 0) throw new Error(`no Python interpreter (${base}): install python3 (3.9+) or set PYTHON\n${version.output}`)
  const key = createHash('sha256')
    .update(version.output)
    .update(readFileSync(REQUIREMENTS))
    .update(readFileSync(join(SDK_PYTHON_DIR, 'pyproject.toml')))
    .digest('hex')
    .slice(0, 12)
  const dir = join(CACHE_DIR, `venv-${key}`)
  const python = join(dir, 'bin', 'python')
  const ready = join(dir, '.ready')
  if (existsSync(ready)) return { python, dir }
  mkdirSync(CACHE_DIR, { recursive: true })
  await withLock(`${dir}.lock`, async () => {
    if (existsSync(ready)) return
    rmSync(dir, { recursive: true, force: true })
    await mustRun(base, ['-m', 'venv', dir], `python -m venv (on Debian: apt-get install python3-venv)`)
    const pip = ['-m', 'pip', '--disable-pip-version-check', '--no-input']
    // Offline from the wheelhouse (the build backend too: the editable install builds with it) ...
    const install = [...pip, 'install', '-q', '--no-index', '--find-links', WHEELS, '-r', REQUIREMENTS, '-e', SDK_PYTHON_DIR]
    if ((await run(python, install, { timeoutMs: 15 * 60_000 })).code !== 0) {
      // ... or, when it lacks something, after fetching what the requirements need from PyPI.
      await mustRun(python, [...pip, 'download', '-q', '-d', WHEELS, '-r', REQUIREMENTS, 'hatchling', 'editables'], 'pip download')
      await mustRun(python, install, 'pip install')
    }
    await mustRun(python, [...pip, 'check'], 'pip check (the SDK installs beside the stock OTLP exporters)')
    writeFileSync(ready, `${new Date().toISOString()}\n`)
    // Environments of earlier requirements are dead weight now.
    for (const old of readdirSync(CACHE_DIR)) if (/^venv-[0-9a-f]{12}$/.test(old) && old !== `venv-${key}`) rmSync(join(CACHE_DIR, old), { recursive: true, force: true })
  })
  return { python, dir }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const t0 = Date.now()
  const { python } = await pythonVenv()
  process.stdout.write(`python test environment ready: ${python} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`)
}
