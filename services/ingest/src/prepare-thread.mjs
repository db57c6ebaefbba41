// An ingest thread (prepare-pool.ts starts it) when the process runs from source (tsx,
// vitest). A worker thread loads its entry as plain JavaScript whatever runs the process,
// so this entry registers tsx and loads the TypeScript body. Started compiled
// (`pnpm start`, scripts/start.mjs), the bundle has its own prepare-thread.mjs.
import { register } from 'tsx/esm/api'

register()
await import('./prepare-thread.ts')
