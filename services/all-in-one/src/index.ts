export { startAll, type RunningStack } from './start-all.js'
