export { startAssembler, type AssemblerDeps } from './service.js'
export { spanRow, type SpanRow } from './assemble.js'
