/**
 * Query parameters, parsed and validated before any query runs (spec: a bad
 * grade_min, cursor or time is 400): the zod helpers every route's query schema is
 * built from, and GET /traces's. Pure, so it is unit-tested alone.
 */
import { z } from 'zod'
import { GRADES, gradeRank } from '@svc/shared/domain/grades'
import { badRequest, type HttpError } from '@svc/shared/http/errors'
import { isoToNs, isStoredNs, MAX_STORED_NS } from '@svc/shared/store/time'

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
  const fail = malformedCursor
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(raw)) throw fail()
  let v: unknown
  try {
    v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'))
  } catch {
    throw fail()
  }
  const o = v as { v?: unknown; s?: unknown; t?: unknown }
  if (o === null || typeof o !== 'object' || o.v !== 1 || typeof o.s !== 'string' || !/^\d{1,19}$/.test(o.s) || BigInt(o.s) > MAX_STORED_NS || typeof o.t !== 'string' || !/^[0-9a-f]{32}$/.test(o.t)) throw fail()
  return { start_ns: o.s, trace_id: o.t }
}

/**
 * Query parameters are described by zod schemas, so the handler and the OpenAPI
 * document (openapi/document.ts) read the same definition. Each parameter keeps
 * its own 400 (message and detail) through queryParam(); parseQuery() throws the
 * error of the first parameter, in the schema's key order, that does not match.
 */
type ParamError = (raw: string | undefined) => HttpError
const paramErrors = new WeakMap<z.ZodTypeAny, ParamError>()

export interface QueryParamOptions {
  description?: string
  /** 'null' counts as absent too (the trace list's nullable parameters). */
  nullAsAbsent?: boolean
  /** Applied to a present value before `schema` sees it. */
  normalize?: (raw: string) => unknown
}

/** One query parameter: absent ('' included) becomes undefined before `schema`; a value it rejects throws onError(raw). */
export function queryParam<S extends z.ZodTypeAny>(schema: S, onError: ParamError, opts: QueryParamOptions = {}) {
  const p = z.preprocess((v) => {
    if (v === undefined || v === '' || (opts.nullAsAbsent && v === 'null')) return undefined
    return opts.normalize && typeof v === 'string' ? opts.normalize(v) : v
  }, schema)
  const withDescription = opts.description ? p.describe(opts.description) : p
  paramErrors.set(withDescription, onError)
  return withDescription
}

/** One of `accepted`; `fallback` when absent (required without one). 400 naming the accepted values. */
export function queryEnum<T extends string>(name: string, accepted: readonly T[], fallback?: T, description?: string) {
  const e = z.enum(accepted as unknown as [T, ...T[]])
  return queryParam(fallback === undefined ? e : e.default(fallback as never), (raw) => badRequest(`invalid ${name} ${JSON.stringify(raw)}`, { parameter: name, accepted }), { description })
}

/** An integer from min to max, `fallback` when absent. */
export function queryInt(name: string, min: number, max: number, fallback: number, description?: string) {
  return queryParam(
    z.number().int().min(min).max(max).default(fallback),
    () => badRequest(`${name} must be an integer from ${min} to ${max}`, { parameter: name, min, max }),
    {
      description,
      normalize: (raw) => {
        const n = Number(raw)
        return Number.isNaN(n) ? raw : n
      },
    },
  )
}

/** Parses a query against its schema; the first parameter that does not match answers 400 (its own error). */
export function parseQuery<S extends z.AnyZodObject>(schema: S, raw: Record<string, string | undefined>): z.infer<S> {
  const parsed = schema.safeParse(raw)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]!
  const name = String(issue.path[0] ?? '')
  const field = (schema.shape as Record<string, z.ZodTypeAny>)[name]
  const onError = field ? paramErrors.get(field) : undefined
  throw onError ? onError(raw[name]) : badRequest(`invalid ${name}: ${issue.message}`, { parameter: name })
}

const malformedCursor = () => badRequest('malformed cursor: pass next_cursor from the previous page unchanged')
const notIso = (name: string) => (v: string | undefined) =>
  isoToNs(v) === null
    ? badRequest(`${name} is not an ISO 8601 timestamp (e.g. 2026-01-31T12:00:00Z)`, { parameter: name, value: v })
    : badRequest(`${name} is outside the stored time range, 1900-01-01T00:00:00Z to 2262-04-11T23:47:16Z`, { parameter: name, value: v })
const isoTime = z.string().refine((v) => {
  const ns = isoToNs(v)
  return ns !== null && isStoredNs(ns)
})

/** GET /traces: keys in the order they are validated (the first bad one answers). */
export const TraceListQuerySchema = z.object({
  page_size: queryParam(
    z.number().int().min(1).max(PAGE_SIZE_MAX).default(PAGE_SIZE_DEFAULT),
    () => badRequest(`page_size must be an integer from 1 to ${PAGE_SIZE_MAX}`, { parameter: 'page_size', min: 1, max: PAGE_SIZE_MAX }),
    { nullAsAbsent: true, normalize: (v) => (/^\d{1,6}$/.test(v) ? Number(v) : v), description: `Items per page, 1-${PAGE_SIZE_MAX}.` },
  ),
  grade_min: queryParam(
    z.enum(GRADES).optional(),
    () => badRequest('grade_min must be one of the nine grades', { parameter: 'grade_min', accepted: GRADES }),
    { nullAsAbsent: true, description: 'Only traces graded at this rank or better (D < C < C+ < B- < B < B+ < A- < A < A+); unscored traces are left out.' },
  ),
  include_empty: queryParam(
    z.enum(['true', 'false', '1', '0']).default('false'),
    () => badRequest('include_empty must be true or false', { parameter: 'include_empty', accepted: ['true', 'false'] }),
    { nullAsAbsent: true, normalize: (v) => v.toLowerCase(), description: 'Include traces without LLM content (true/false; 1/0 accepted).' },
  ),
  start_time: queryParam(isoTime.optional(), notIso('start_time'), { nullAsAbsent: true, description: 'ISO 8601 UTC lower bound of trace_start, inclusive.' }),
  end_time: queryParam(isoTime.optional(), notIso('end_time'), { nullAsAbsent: true, description: 'ISO 8601 UTC upper bound of trace_start, exclusive.' }),
  cursor: queryParam(z.string().regex(/^[A-Za-z0-9_-]{1,512}$/).optional(), malformedCursor, {
    nullAsAbsent: true,
    description: 'Opaque: next_cursor of the previous page, unchanged.',
  }),
  project: queryParam(z.string().optional(), () => badRequest('invalid project', { parameter: 'project' }), { nullAsAbsent: true, description: 'Only traces of this project_id.' }),
})

export function parseTraceListQuery(q: Record<string, string | undefined>): TraceListQuery {
  const p = parseQuery(TraceListQuerySchema, q)
  return {
    pageSize: p.page_size,
    cursor: p.cursor === undefined ? null : decodeCursor(p.cursor),
    startNs: p.start_time === undefined ? null : isoToNs(p.start_time),
    endNs: p.end_time === undefined ? null : isoToNs(p.end_time),
    gradeMinRank: p.grade_min === undefined ? null : gradeRank(p.grade_min),
    project: p.project ?? null,
    includeEmpty: p.include_empty === 'true' || p.include_empty === '1',
  }
}
