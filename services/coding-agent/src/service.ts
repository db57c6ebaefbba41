/**
 * The coding-agent service: one consumer group over coding-agent.metrics.v1 and
 * coding-agent.events.v1, landing rows in ClickHouse (handler.ts). Wiring only.
 */
import type { BackgroundLane } from '@svc/shared/background-lane'
import { runConsumer } from '@svc/shared/bus/run-consumer'
import type { Bus } from '@svc/shared/bus/types'
import type { Logger } from '@svc/shared/log'
import type { Store } from '@svc/shared/store/types'
import { codingAgentConsumer } from './handler.js'

export interface CodingAgentDeps {
  bus: Bus
  store: Store
  log: Logger
  /** The all-in-one's background lane: batches wait while assembly is busy. Standalone: none. */
  background?: BackgroundLane
}

export async function startCodingAgent(deps: CodingAgentDeps): Promise<{ close(): Promise<void> }> {
  const log = deps.log.child({ component: 'coding-agent' })
  const sub = await runConsumer(deps.bus, { ...codingAgentConsumer(deps.store, log), background: deps.background })
  await sub.ready
  log.info('coding-agent consumer started')
  return { close: () => sub.close() }
}
