/**
 * OTLP/JSON metrics (ExportMetricsServiceRequest) -> coding-agent metric points
 * (schemas/coding-agent-metric.v1.avsc), one record per data point. Pure.
 *
 * - Sum, Gauge and Histogram are decoded; ExponentialHistogram and Summary points
 *   are rejected (dead-lettered) since no coding agent sends them.
 * - asInt may be a string of digits (proto3 JSON int64) or a number; asDouble a
 *   number or a numeric string. A point without a finite value is rejected.
 * - aggregationTemporality 1 = delta, 2 = cumulative (also the enum names);
 *   0/unset on a sum or histogram is taken as cumulative, which can never count
 *   a value twice. Gauges carry temporality "none".
 * - Attributes: resource attributes overlaid by the data point's (scope
 *   attributes are not used by any coding agent and are dropped).
 * The request as a whole is malformed (400) when a repeated field is not a list;
 * a bad data point only rejects that point.
 */
import type { CodingAgentMetricRecord } from '@svc/shared/bus/records'
import { decodeAttributeList, InvalidValueError, newAttributeMap, preview } from './any-value.js'
import { isObject, listField, MalformedRequest, parseNanos } from './fields.js'

export interface RejectedItem {
  reason: string
  item: unknown
}

export type DecodedMetrics = { ok: true; points: CodingAgentMetricRecord[]; rejected: RejectedItem[] } | { ok: false; message: string }

export interface Tenant {
  org_id: string
  workspace_id: string
}

/** A data point that cannot be decoded; it is dead-lettered and the rest of the request accepted. */
class PointRejected extends Error {}

/** Resource attributes of an OTLP resource (resourceMetrics[].resource / resourceLogs[].resource). */
export function resourceAttributes(resource: unknown, path: string): Record<string, string> {
  const attrs = newAttributeMap()
  if (resource === undefined || resource === null) return attrs
  if (!isObject(resource)) throw new MalformedRequest(`${path} is not an object`)
  try {
    decodeAttributeList(listField(resource.attributes, `${path}.attributes`), attrs, new Set())
  } catch (err) {
    if (err instanceof InvalidValueError) throw new MalformedRequest(`${path}: ${err.message}`)
    throw err
  }
  return attrs
}

/** Number of an asInt: digits as a string (int64 in proto3 JSON) or an integer number. */
export function intValue(v: unknown): number | null {
  if (typeof v === 'string' && /^[+-]?\d{1,19}$/.test(v)) return Number(v)
  if (typeof v === 'number' && Number.isInteger(v)) return v
  return null
}

/** Number of an asDouble: a number or a numeric string; NaN and infinities are refused. */
export function doubleValue(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN
  return Number.isFinite(n) ? n : null
}

/** delta | cumulative from the OTLP enum (number or name); unset is cumulative. */
export function temporalityOf(v: unknown): 'delta' | 'cumulative' {
  if (v === 1 || v === '1' || v === 'AGGREGATION_TEMPORALITY_DELTA' || v === 'DELTA') return 'delta'
  return 'cumulative'
}

function pointValue(p: Record<string, unknown>): number {
  if (p.asInt !== undefined && p.asInt !== null) {
    const n = intValue(p.asInt)
    if (n === null) throw new PointRejected(`asInt ${preview(p.asInt)} is not an integer`)
    return n
  }
  if (p.asDouble !== undefined && p.asDouble !== null) {
    const n = doubleValue(p.asDouble)
    if (n === null) throw new PointRejected(`asDouble ${preview(p.asDouble)} is not a finite number`)
    return n
  }
  throw new PointRejected('data point has neither asInt nor asDouble')
}

/** `path` names the point in an error only, so it is built only then (this runs for every point). */
function pointAttributes(p: Record<string, unknown>, resource: Record<string, string>, path: () => string): Record<string, string> {
  const attrs = newAttributeMap()
  Object.assign(attrs, resource)
  try {
    decodeAttributeList(listField(p.attributes, () => `${path()}.attributes`), attrs, new Set())
  } catch (err) {
    if (err instanceof InvalidValueError) throw new PointRejected(err.message)
    throw err
  }
  return attrs
}

function timeOf(p: Record<string, unknown>): bigint {
  const t = parseNanos(p.timeUnixNano)
  if (t === null) throw new PointRejected(`timeUnixNano ${preview(p.timeUnixNano)} is missing or not nanoseconds`)
  return t
}

export function decodeMetricsRequest(body: unknown, opts: { tenant: Tenant; receivedAtMs: number }): DecodedMetrics {
  if (!isObject(body)) return { ok: false, message: 'body is not an OTLP metrics object ({"resourceMetrics": [...]})' }
  if (body.resourceMetrics === undefined) return { ok: false, message: 'resourceMetrics is missing' }
  const points: CodingAgentMetricRecord[] = []
  const rejected: RejectedItem[] = []
  try {
    listField(body.resourceMetrics, 'resourceMetrics').forEach((rm, i) => {
      const rPath = `resourceMetrics[${i}]`
      if (!isObject(rm)) throw new MalformedRequest(`${rPath} is not an object`)
      const resource = resourceAttributes(rm.resource, `${rPath}.resource`)
      const serviceName = resource['service.name'] ?? ''
      listField(rm.scopeMetrics, `${rPath}.scopeMetrics`).forEach((sm, j) => {
        const sPath = `${rPath}.scopeMetrics[${j}]`
        if (!isObject(sm)) throw new MalformedRequest(`${sPath} is not an object`)
        listField(sm.metrics, `${sPath}.metrics`).forEach((m, k) => {
          const mPath = `${sPath}.metrics[${k}]`
          if (!isObject(m)) throw new MalformedRequest(`${mPath} is not an object`)
          const name = typeof m.name === 'string' ? m.name : ''
          const unit = typeof m.unit === 'string' ? m.unit : ''
          const kind = isObject(m.sum) ? 'sum' : isObject(m.gauge) ? 'gauge' : isObject(m.histogram) ? 'histogram' : null
          if (!name || kind === null) {
            rejected.push({ reason: !name ? 'metric has no name' : `metric ${name}: only sum, gauge and histogram are accepted`, item: m })
            return
          }
          const data = m[kind] as Record<string, unknown>
          const temporality = kind === 'gauge' ? 'none' : temporalityOf(data.aggregationTemporality)
          const isMonotonic = kind === 'sum' ? data.isMonotonic === true : kind === 'histogram'
          listField(data.dataPoints, `${mPath}.${kind}.dataPoints`).forEach((p, n) => {
            try {
              if (!isObject(p)) throw new PointRejected('data point is not an object')
              let value: number
              let count = 0
              if (kind === 'histogram') {
                const c = intValue(p.count ?? 0)
                if (c === null || c < 0) throw new PointRejected(`count ${preview(p.count)} is not a non-negative integer`)
                count = c
                const s = p.sum === undefined || p.sum === null ? 0 : doubleValue(p.sum)
                if (s === null) throw new PointRejected(`sum ${preview(p.sum)} is not a finite number`)
                value = s
              } else value = pointValue(p)
              // Every field written out, no spread: one object shape for every point (what
              // the Avro writer reads fastest; a spread cost more than the whole encode).
              points.push({
                org_id: opts.tenant.org_id,
                workspace_id: opts.tenant.workspace_id,
                metric_name: name,
                unit,
                service_name: serviceName,
                received_at_ms: opts.receivedAtMs,
                metric_type: kind,
                temporality,
                is_monotonic: isMonotonic,
                start_time_unix_nano: parseNanos(p.startTimeUnixNano) ?? 0n,
                time_unix_nano: timeOf(p),
                value,
                count,
                attributes: pointAttributes(p, resource, () => `${mPath}.${kind}.dataPoints[${n}]`),
              })
            } catch (err) {
              if (err instanceof PointRejected) rejected.push({ reason: `metric ${name}: ${err.message}`, item: p })
              else throw err
            }
          })
        })
      })
    })
  } catch (err) {
    if (err instanceof MalformedRequest) return { ok: false, message: err.message }
    throw err
  }
  return { ok: true, points, rejected }
}
