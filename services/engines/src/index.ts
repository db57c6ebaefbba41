export { startEngines, enginesToRun } from './service.js'
export { ENGINE_DEFINITIONS } from './registry.js'
