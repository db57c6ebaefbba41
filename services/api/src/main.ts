/** Standalone read-API process: wiring only. */
import { bootstrapIdentity } from '@svc/shared/control/bootstrap'
import { runStandalone } from '@svc/shared/standalone'
import { startApi } from './service.js'

await runStandalone('api', {}, async ({ openStore, ...a }) => {
  // The split topology's way in: the first organization, owner and API key, made as the
  // all-in-one makes them (idempotent; every replica may run it, bootstrap.ts says how).
  await bootstrapIdentity(a)
  return startApi({ ...a, store: await openStore() })
})
