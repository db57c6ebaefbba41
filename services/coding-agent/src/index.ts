export { startCodingAgent, type CodingAgentDeps } from './service.js'
export * from './map.js'
