/**
 * Query parameters of GET /traces, parsed and validated before any query runs
 * (spec: a bad grade_min, cursor or time is 400). Pure, so it is unit-tested alone.
 */
import { GRADES, gradeRank, isGrade } from '@svc/shared/domain/grades'
import { badRequest } from '@svc/shared/http/errors'
import { isoToNs } from '@svc/shared/store/time'

export const PAGE_SIZE_DEFAULT = 50
export const PAGE_SIZE_MAX = 500

/** Keyset position: the last row of the previous page. */
export interface TraceCursor {
  start_ns: string
  trace_id: string
}

export interface TraceListQuery {
  pageSize: number
  cursor: TraceCursor | null
  startNs: bigint | null
  endNs: bigint | null
  gradeMinRank: number | null
  project: string | null
  includeEmpty: boolean
}

/** Opaque to clients; base64url JSON so it survives any URL without escaping. */
export const encodeCursor = (c: TraceCursor): string => Buffer.from(JSON.stringify({ v: 1, s: c.start_ns, t: c.trace_id })).toString('base64url')

export function decodeCursor(raw: string): TraceCursor {
  const fail = () => badRequest('malformed cursor: pass next_cursor from the previous page unchanged')
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(raw)) throw fail()
  let v: unknown
  try {
    v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'))
  } catch {
    throw fail()
  }
  const o = v as { v?: unknown; s?: unknown; t?: unknown }
  if (o === null || typeof o !== 'object' || o.v !== 1 || typeof o.s !== 'string' || !/^\d{1,20}$/.test(o.s) || typeof o.t !== 'string' || !/^[0-9a-f]{32}$/.test(o.t)) throw fail()
  return { start_ns: o.s, trace_id: o.t }
}

const present = (v: string | undefined): v is string => v !== undefined && v !== '' && v !== 'null'

function time(name: string, v: string | undefined): bigint | null {
  if (!present(v)) return null
  const ns = isoToNs(v)
  if (ns === null) throw badRequest(`${name} is not an ISO 8601 timestamp (e.g. 2026-01-31T12:00:00Z)`, { parameter: name, value: v })
  return ns
}

export function parseTraceListQuery(q: Record<string, string | undefined>): TraceListQuery {
  let pageSize = PAGE_SIZE_DEFAULT
  if (present(q.page_size)) {
    pageSize = /^\d{1,6}$/.test(q.page_size) ? Number(q.page_size) : NaN
    if (!(pageSize >= 1 && pageSize <= PAGE_SIZE_MAX)) throw badRequest(`page_size must be an integer from 1 to ${PAGE_SIZE_MAX}`, { parameter: 'page_size', min: 1, max: PAGE_SIZE_MAX })
  }
  let gradeMinRank: number | null = null
  if (present(q.grade_min)) {
    if (!isGrade(q.grade_min)) throw badRequest('grade_min must be one of the nine grades', { parameter: 'grade_min', accepted: GRADES })
    gradeMinRank = gradeRank(q.grade_min)
  }
  let includeEmpty = false
  if (present(q.include_empty)) {
    const v = q.include_empty.toLowerCase()
    if (!['true', 'false', '1', '0'].includes(v)) throw badRequest('include_empty must be true or false', { parameter: 'include_empty', accepted: ['true', 'false'] })
    includeEmpty = v === 'true' || v === '1'
  }
  const startNs = time('start_time', q.start_time)
  const endNs = time('end_time', q.end_time)
  return {
    pageSize,
    cursor: present(q.cursor) ? decodeCursor(q.cursor) : null,
    startNs,
    endNs,
    gradeMinRank,
    project: present(q.project) ? q.project : null,
    includeEmpty,
  }
}
