import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))

/**
 * The node flags `pnpm start:<service>` runs a service with (package.json's
 * `node <flags> scripts/start.mjs <service>`), so a service spawned here from its
 * TypeScript runs with the heap settings it runs with in production.
 */
export function startScript(name: string): { flags: string[]; service: string } {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  const script = pkg.scripts[name]
  const m = script ? /^node((?:\s+--[a-z-]+(?:=\S+)?)*)\s+scripts\/start\.mjs\s+([a-z-]+)$/.exec(script) : null
  if (!m) throw new Error(`package.json has no "${name}": "node [--flags] scripts/start.mjs <service>" script (found ${JSON.stringify(script)})`)
  return { flags: m[1]!.trim().split(/\s+/).filter(Boolean), service: m[2]! }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))))
    })
  })
}

/** Runs the all-in-one process from its TypeScript (what `pnpm start` runs, without the build step) as a child. */
export function spawnAllInOne(env: Record<string, string>): ChildProcess & { output: () => string } {
  return spawnService('services/all-in-one/src/main.ts', env)
}

/** Runs one service's entry (e.g. services/ingest/src/main.ts) from its TypeScript, as a child. */
export function spawnService(entry: string, env: Record<string, string>): ChildProcess & { output: () => string } {
  // BENCH_NODE_ARGS: extra node flags for the service alone, e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof'.
  const extra = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []
  return spawnNode([...startScript('start').flags, ...extra, '--import', 'tsx', entry], env)
}

/** Runs a service as `pnpm start` does (scripts/start.mjs: its compiled JavaScript, built first when its sources changed). */
export function spawnCompiled(service: string, env: Record<string, string>): ChildProcess & { output: () => string } {
  return spawnNode([...startScript('start').flags, 'scripts/start.mjs', service], env)
}

function spawnNode(args: string[], env: Record<string, string>): ChildProcess & { output: () => string } {
  let output = ''
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  return Object.assign(child, { output: () => output })
}

export async function waitForHealth(url: string, child: ChildProcess & { output: () => string }, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited (${child.exitCode}) before becoming healthy:\n${child.output()}`)
    try {
      if ((await fetch(url)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`not healthy within ${timeoutMs} ms:\n${child.output()}`)
}

export function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()))
}
