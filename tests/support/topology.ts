/**
 * The multi-process shape of deploy/compose.yaml on this machine: each service a
 * process of its own, started through its `pnpm start:<service>` entry (the script's
 * `node scripts/start.mjs <service>` runs it compiled; here its TypeScript,
 * services/<service>/src/main.ts, runs as `node --import tsx <entry>`, as the other
 * tests do), with its own environment. Processes are grouped by type, killed with
 * SIGKILL a whole type at a time, and restarted with the same environment (ports,
 * data directory).
 */
import { exited, spawnService, startScript, waitForHealth } from './process.js'

export type ProcessType = 'clickhouse' | 'ingest' | 'assembler' | 'engines' | 'coding-agent' | 'api'

type Child = ReturnType<typeof spawnService>

export interface Member {
  type: ProcessType
  /** e.g. "ingest-2", for messages. */
  name: string
  env: Record<string, string>
  /** Answers 200 once the process serves (its port, or its /metrics port). */
  healthUrl: string
  child: Child | null
}

/** The TypeScript entry of the service `pnpm start:<type>` runs, read from package.json so the test follows the scripts. */
export function startEntry(type: ProcessType): string {
  return `services/${startScript(`start:${type}`).service}/src/main.ts`
}

export class Topology {
  readonly members: Member[] = []

  add(type: ProcessType, name: string, env: Record<string, string>, healthUrl: string): Member {
    const m: Member = { type, name, env, healthUrl, child: null }
    this.members.push(m)
    return m
  }

  of(type: ProcessType): Member[] {
    return this.members.filter((m) => m.type === type)
  }

  /** Starts every member of these types at once and waits until each serves. */
  async start(...types: ProcessType[]): Promise<void> {
    const members = this.members.filter((m) => types.includes(m.type))
    for (const m of members) m.child = spawnService(startEntry(m.type), m.env)
    await Promise.all(members.map((m) => waitForHealth(m.healthUrl, m.child!, 120_000).catch((err: Error) => Promise.reject(new Error(`${m.name}: ${err.message}`)))))
  }

  /** SIGKILL to every member of the type, resolved once all have exited. */
  async kill(type: ProcessType): Promise<void> {
    await Promise.all(
      this.of(type).map(async (m) => {
        m.child?.kill('SIGKILL')
        if (m.child) await exited(m.child)
      }),
    )
  }

  /** The last lines every process wrote (this start's), for a failure's message. */
  tails(chars = 1500): string {
    return this.members.map((m) => `--- ${m.name}\n${(m.child?.output() ?? '').slice(-chars)}`).join('\n')
  }

  /** Stops everything (SIGTERM, then SIGKILL after 10 s), the store last. */
  async close(): Promise<void> {
    const stop = async (m: Member) => {
      const c = m.child
      if (!c || c.exitCode !== null || c.signalCode !== null) return
      c.kill('SIGTERM')
      const timer = setTimeout(() => c.kill('SIGKILL'), 10_000)
      await exited(c)
      clearTimeout(timer)
    }
    await Promise.all(this.members.filter((m) => m.type !== 'clickhouse').map(stop))
    await Promise.all(this.of('clickhouse').map(stop))
  }
}
