/** Standalone coding-agent consumer process: wiring only. */
import { runStandalone } from '@svc/shared/standalone'
import { startCodingAgent } from './service.js'

await runStandalone('coding-agent', { metricsPort: true }, async ({ openStore, bus, log }) => startCodingAgent({ bus, store: await openStore(), log }))
