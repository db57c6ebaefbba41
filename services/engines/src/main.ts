/** Standalone engines process (the workers of SVC_ENGINES and the results sink): wiring only. */
import { runStandalone } from '@svc/shared/standalone'
import { startEngines } from './service.js'

await runStandalone('engines', { metricsPort: true }, async ({ openStore, ...a }) => startEngines({ ...a, store: await openStore() }))
