/** Standalone read-API process: wiring only. */
import { runStandalone } from '@svc/shared/standalone'
import { startApi } from './service.js'

await runStandalone('api', {}, async ({ openStore, ...a }) => startApi({ ...a, store: await openStore() }))
