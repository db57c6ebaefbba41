/**
 * Versions reported in API responses. SCHEMA_VERSION is the trace list's response
 * shape (the spec shows 1.0). JUDGEMENT_VERSION is content_reliability's claim
 * judgement (services/engines/src/reliability/judgement.ts), bumped with any change
 * of it so no cache or stored result mixes two versions; SCORER_VERSION names the
 * scorer whose grades new scores carry and includes it, so clients can tell traces
 * graded by another judgement apart.
 */
export const SCHEMA_VERSION = '1.0'
export const JUDGEMENT_VERSION = '2.2.0'
export const SCORER_VERSION = `reliability-${JUDGEMENT_VERSION}`
