/**
 * The coding-agent service: one consumer group over coding-agent.metrics.v1 and
 * coding-agent.events.v1, landing rows in ClickHouse (handler.ts). Wiring only.
 */
import { GROUPS, TOPICS } from '@svc/shared/bus/topics'
import type { Bus } from '@svc/shared/bus/types'
import type { Logger } from '@svc/shared/log'
import type { Store } from '@svc/shared/store/types'
import { codingAgentBatchHandler } from './handler.js'

export interface CodingAgentDeps {
  bus: Bus
  store: Store
  log: Logger
}

export async function startCodingAgent(deps: CodingAgentDeps): Promise<{ close(): Promise<void> }> {
  const log = deps.log.child({ component: 'coding-agent' })
  const sub = await deps.bus.subscribe({
    group: GROUPS.codingAgent,
    topics: [TOPICS.codingAgentMetrics, TOPICS.codingAgentEvents],
    fromBeginning: true,
    // Large batches: each costs one previous-point lookup and four inserts whatever its size.
    maxBatchRecords: 20_000,
    onBatch: codingAgentBatchHandler(deps.store, log),
  })
  await sub.ready
  log.info('coding-agent consumer started')
  return { close: () => sub.close() }
}
