/** Standalone assembler process: wiring only. */
import { runStandalone } from '@svc/shared/standalone'
import { startAssembler } from './service.js'

await runStandalone('assembler', { metricsPort: true }, async ({ openStore, ...a }) => startAssembler({ ...a, store: await openStore() }))
