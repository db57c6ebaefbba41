/**
 * Versions reported in API responses. SCHEMA_VERSION is the trace list's response
 * shape (the spec shows 1.0); SCORER_VERSION names the reliability scorer whose
 * grades new scores carry, so clients can tell re-scored traces apart.
 */
export const SCHEMA_VERSION = '1.0'
export const SCORER_VERSION = 'reliability-1.0.0'
