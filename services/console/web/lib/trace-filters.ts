/**
 * The trace list's filters, kept in the page's query string (so a filtered list
 * can be bookmarked and shared) and turned into GET /traces parameters: every
 * filter the API has (time range, project, grade_min, include_empty).
 */
export const GRADES = ['A+', 'A', 'A-', 'B+', 'B', 'B-', 'C+', 'C', 'D'] as const

/** Rolling windows, measured back from now at every refresh; `custom` uses from/to. */
export const RANGES = { '1h': 3600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000, all: 0, custom: 0 } as const
export type RangeKey = keyof typeof RANGES

export interface TraceFilters {
  range: RangeKey
  /** ISO instants, for the custom range. */
  from: string
  to: string
  project: string
  grade_min: string
  include_empty: boolean
}

export const DEFAULT_FILTERS: TraceFilters = { range: 'all', from: '', to: '', project: '', grade_min: '', include_empty: false }

export function filtersFromQuery(q: URLSearchParams): TraceFilters {
  const range = q.get('range') ?? ''
  const grade = q.get('grade_min') ?? ''
  return {
    range: range in RANGES ? (range as RangeKey) : DEFAULT_FILTERS.range,
    from: q.get('from') ?? '',
    to: q.get('to') ?? '',
    project: q.get('project') ?? '',
    grade_min: (GRADES as readonly string[]).includes(grade) ? grade : '',
    include_empty: q.get('include_empty') === 'true',
  }
}

export function filtersToQuery(f: TraceFilters): string {
  const q = new URLSearchParams()
  if (f.range !== DEFAULT_FILTERS.range) q.set('range', f.range)
  if (f.range === 'custom') {
    if (f.from) q.set('from', f.from)
    if (f.to) q.set('to', f.to)
  }
  if (f.project) q.set('project', f.project)
  if (f.grade_min) q.set('grade_min', f.grade_min)
  if (f.include_empty) q.set('include_empty', 'true')
  return q.toString()
}

/** GET /traces's query for these filters at `nowMs` (a rolling range ends now, open-ended). */
export function traceListQuery(f: TraceFilters, nowMs: number, page: { cursor?: string | null; pageSize?: number } = {}): Record<string, string> {
  const q: Record<string, string> = { page_size: String(page.pageSize ?? 50) }
  if (f.range === 'custom') {
    if (f.from) q.start_time = f.from
    if (f.to) q.end_time = f.to
  } else if (RANGES[f.range] > 0) q.start_time = new Date(nowMs - RANGES[f.range]).toISOString()
  if (f.project) q.project = f.project
  if (f.grade_min) q.grade_min = f.grade_min
  if (f.include_empty) q.include_empty = 'true'
  if (page.cursor) q.cursor = page.cursor
  return q
}
