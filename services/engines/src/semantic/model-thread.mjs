// The sentence model's thread (threaded-model.ts starts it). A worker thread loads its
// entry as plain JavaScript whatever runs the process (tsx for `pnpm start`, vitest in
// tests), so this entry registers tsx and loads the TypeScript body.
import { register } from 'tsx/esm/api'

register()
await import('./model-thread.ts')
