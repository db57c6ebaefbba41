/** Standalone ingest process: wiring only. Ingest serves its own /metrics on its port. */
import { runStandalone } from '@svc/shared/standalone'
import { startIngest } from './service.js'

// Closing ingest stops accepting and drains in-flight produces before the bus closes.
await runStandalone('ingest', {}, (a) => startIngest(a))
