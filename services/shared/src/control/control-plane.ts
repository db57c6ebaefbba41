import { randomUUID } from 'node:crypto'
import type { Logger } from '../log.js'
import { controlEventV1 } from '../bus/records.js'
import { TOPICS } from '../bus/topics.js'
import type { Bus, Subscription } from '../bus/types.js'
import { ControlPayloadError } from './errors.js'
import { ControlEventPayloads, parseControlEvent, type ControlEvent, type ControlEventPayload, type ControlEventType } from './events.js'
import { ControlState } from './state.js'

export type NewControlEvent = { [T in ControlEventType]: { type: T; payload: ControlEventPayload<T> } }[ControlEventType]

/** What a writer of control state needs: the folded state, and a durable append that it can read back at once. */
export interface ControlWriter {
  readonly state: ControlState
  append(events: NewControlEvent[], actor: string): Promise<void>
}

/**
 * A writer that can also wait until it has folded every event any process appended
 * before the call: a decision read from `state` after `catchUp()` sees what another
 * replica wrote before it (bootstrap, under its lock).
 */
export interface SyncedControlWriter extends ControlWriter {
  catchUp(): Promise<void>
}

/**
 * A ControlWriter without a bus: validates and folds each event straight into the
 * given state (so it is always caught up). For tests of the HTTP layer; processes
 * use ControlPlane.
 */
export function foldingWriter(state: ControlState): SyncedControlWriter {
  let n = 0
  return {
    state,
    catchUp: async () => {},
    async append(events, actor) {
      for (const e of events) {
        const check = ControlEventPayloads[e.type].safeParse(e.payload)
        if (!check.success) throw new ControlPayloadError(e.type, check.error.message)
        state.apply({ ...e, actor, at_ms: Date.now(), event_id: `local-${n++}` } as ControlEvent)
      }
    },
  }
}

/**
 * Keeps this process's ControlState in step with the control topic. Every process
 * (ingest, assembler, api) folds the whole topic at start through an ephemeral
 * subscription and then follows it, so an API key revoked by the API stops working
 * at ingest as soon as ingest folds the event. Writers get read-your-writes:
 * `append` resolves only once this process has folded what it wrote.
 */
export class ControlPlane implements SyncedControlWriter {
  readonly state: ControlState
  private folded = -1n
  private waiters: Array<{ offset: bigint; resolve: () => void }> = []
  private sub: Subscription | null = null

  private constructor(private readonly bus: Bus, private readonly log: Logger) {
    this.state = new ControlState(log)
  }

  static async start(bus: Bus, log: Logger): Promise<ControlPlane> {
    const cp = new ControlPlane(bus, log.child({ component: 'control-plane' }))
    const end = await cp.lastOffset()
    cp.sub = await bus.subscribe({
      group: 'control-fold',
      topics: [TOPICS.controlEvents],
      ephemeral: true,
      fromBeginning: true,
      onBatch: async (records) => {
        for (const r of records) cp.fold(r.value, BigInt(r.offset))
      },
    })
    await cp.sub.ready
    await cp.waitFor(end)
    cp.log.info({ orgs: cp.state.orgs.size, workspaces: cp.state.workspaces.size, keys: cp.state.apiKeys.size }, 'control state loaded')
    return cp
  }

  /** Resolves once this process has folded every event appended to the topic before the call. */
  async catchUp(): Promise<void> {
    await this.waitFor(await this.lastOffset())
  }

  private async lastOffset(): Promise<bigint> {
    return BigInt((await this.bus.endOffsets(TOPICS.controlEvents)).get(0) ?? '0') - 1n
  }

  private fold(value: Buffer, offset: bigint) {
    try {
      const event = parseControlEvent(controlEventV1.decode(value))
      if (event) this.state.apply(event)
      else this.log.warn({ offset: offset.toString() }, 'skipping unknown or invalid control event')
    } catch (err) {
      this.log.error({ err, offset: offset.toString() }, 'undecodable control event skipped')
    }
    this.folded = offset
    this.waiters = this.waiters.filter((w) => (w.offset <= offset ? (w.resolve(), false) : true))
  }

  private waitFor(offset: bigint): Promise<void> {
    if (offset <= this.folded) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push({ offset, resolve }))
  }

  /** Validates, appends durably, and resolves once the events are visible in `state`. */
  async append(events: NewControlEvent[], actor: string): Promise<void> {
    if (events.length === 0) return
    const records = events.map((e) => {
      const check = ControlEventPayloads[e.type].safeParse(e.payload)
      if (!check.success) throw new ControlPayloadError(e.type, check.error.message)
      return {
        key: null,
        value: controlEventV1.encode({ event_id: randomUUID(), type: e.type, payload_json: JSON.stringify(e.payload), actor, at_ms: Date.now() }),
      }
    })
    const metas = await this.bus.produce(TOPICS.controlEvents, records)
    const last = metas.reduce((max, m) => (BigInt(m.offset) > max ? BigInt(m.offset) : max), -1n)
    await this.waitFor(last)
  }

  async close(): Promise<void> {
    await this.sub?.close()
  }
}
