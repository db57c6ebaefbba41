/**
 * The model price table and the cost of one span. Costs are computed once, at
 * assembly, and stored with the table version in force (pricing_version), so a
 * new table or a changed cost_provider changes only the costs of later spans.
 *
 * Matching: the provider first (the workspace's effective provider, then the
 * provider the span names), then the most specific model pattern (`gpt-4o-mini*`
 * beats `gpt-4o*` for gpt-4o-mini-2024-07-18), then the entry of that pattern with
 * the latest effective_from not after the span's start. Prices are USD per 1M tokens.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { settingOf, type SettingsSource } from '../control/settings.js'

const Price = z.number().finite().nonnegative()
export const PriceTableSchema = z.object({
  version: z.string().min(1),
  currency: z.literal('USD'),
  entries: z.array(
    z.object({
      provider: z.string().min(1),
      model: z.string().min(1),
      effective_from: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      input: Price,
      output: Price,
      cache_read: Price.optional(),
      cache_write: Price.optional(),
      reasoning: Price.optional(),
    }),
  ),
})
export type PriceTable = z.infer<typeof PriceTableSchema>
export type PriceEntry = PriceTable['entries'][number]

/** The table shipped in the repository (services/shared/data/price-table.json). */
export const BUNDLED_PRICE_TABLE = fileURLToPath(new URL('../../data/price-table.json', import.meta.url))

export function loadPriceTable(file: string = BUNDLED_PRICE_TABLE): PriceTable {
  const parsed = PriceTableSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')))
  if (!parsed.success) throw new Error(`price table ${file} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
  return parsed.data
}

/** The workspace's effective cost provider: its cost_provider setting, else the deployment default. */
export function workspaceCostProvider(state: SettingsSource, workspaceId: string, defaultProvider: string): string {
  return settingOf(state, workspaceId, 'cost_provider') || defaultProvider
}

export interface TokenCounts {
  /** All input tokens, cache reads and writes included. */
  input: number
  /** All output tokens, reasoning included. */
  output: number
  cacheRead: number
  cacheWrite: number
  reasoning: number
}

export interface SpanCost {
  costUsd: number
  /** False when no entry matched: the cost is 0 and the span counts as unpriced. */
  priced: boolean
  pricingVersion: string
}

const matches = (pattern: string, model: string) => {
  if (!pattern.includes('*')) return pattern === model
  const re = new RegExp('^' + pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$')
  return re.test(model)
}
/** More literal characters = more specific. */
const specificity = (pattern: string) => pattern.replace(/\*/g, '').length

const MS_PER_DAY = 86_400_000
/** Distinct (providers, model, day) lookups kept per table; models are client-chosen strings, so the memo is bounded. */
const MEMO_MAX = 10_000
const memo = new WeakMap<PriceTable, Map<string, PriceEntry | null>>()

/**
 * The entry in force for a model on a day. Memoized per table (a table is a
 * version, never changed once loaded) by providers, model and day: the lookup
 * compiles a pattern per entry, and an agent's spans name a handful of models, so
 * nearly every span of the hot path is a map hit.
 */
export function findPrice(table: PriceTable, providers: string[], model: string, atMs: number): PriceEntry | null {
  let cache = memo.get(table)
  if (!cache) memo.set(table, (cache = new Map()))
  const key = `${Math.floor(atMs / MS_PER_DAY)}\u0000${model}\u0000${providers.join('\u0000')}`
  let entry = cache.get(key)
  if (entry === undefined) {
    entry = lookupPrice(table, providers, model, atMs)
    if (cache.size >= MEMO_MAX) cache.clear()
    cache.set(key, entry)
  }
  return entry
}

function lookupPrice(table: PriceTable, providers: string[], model: string, atMs: number): PriceEntry | null {
  const m = model.toLowerCase()
  const day = new Date(atMs).toISOString().slice(0, 10)
  for (const provider of providers) {
    if (!provider) continue
    const candidates = table.entries.filter((e) => e.provider === provider && e.effective_from <= day && matches(e.model, m))
    if (candidates.length === 0) continue
    const best = Math.max(...candidates.map((e) => specificity(e.model)))
    return candidates.filter((e) => specificity(e.model) === best).sort((a, b) => (a.effective_from < b.effective_from ? 1 : -1))[0]!
  }
  return null
}

/** Cost of one span's tokens with the entry in force; 0 and unpriced when none is. */
export function priceTokens(table: PriceTable, providers: string[], model: string, atMs: number, t: TokenCounts): SpanCost {
  const e = model ? findPrice(table, providers, model, atMs) : null
  if (!e) return { costUsd: 0, priced: false, pricingVersion: table.version }
  const cacheRead = Math.min(t.cacheRead, t.input)
  const cacheWrite = Math.min(t.cacheWrite, t.input - cacheRead)
  const reasoning = Math.min(t.reasoning, t.output)
  const usd =
    (t.input - cacheRead - cacheWrite) * e.input +
    cacheRead * (e.cache_read ?? e.input) +
    cacheWrite * (e.cache_write ?? e.input) +
    (t.output - reasoning) * e.output +
    reasoning * (e.reasoning ?? e.output)
  return { costUsd: usd / 1_000_000, priced: true, pricingVersion: table.version }
}
