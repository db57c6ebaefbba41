/**
 * Re-pricing a span's tokens under another model or a smaller prompt, with the same
 * price table the assembler uses, so a saving is always "what it cost" minus "what
 * it would have cost" for the same tokens and never a hard-coded figure.
 */
import { genAiFacts } from '@svc/shared/domain/genai'
import { priceTokens, type PriceEntry, type PriceTable, type TokenCounts } from '@svc/shared/domain/pricing'
import type { ViewSpan } from '../trace-view.js'

export function tokenCounts(s: ViewSpan, input = s.input_tokens): TokenCounts {
  const f = genAiFacts(s.attributes)
  const cacheRead = Math.min(f.cacheReadTokens, input)
  return { input, output: s.output_tokens, cacheRead, cacheWrite: Math.min(f.cacheWriteTokens, input - cacheRead), reasoning: f.reasoningTokens }
}

/** The span's tokens priced for `model` (its own by default) under its provider; null when the table has no such model. */
export function priceSpan(prices: PriceTable, s: ViewSpan, model = s.model, input = s.input_tokens): number | null {
  if (!model) return null
  const p = priceTokens(prices, [s.provider], model, s.start_ms, tokenCounts(s, input))
  return p.priced ? p.costUsd : null
}

/** A concrete model name for a table pattern: "gpt-4o-mini*" -> gpt-4o-mini, "*claude-3-5-haiku*" -> claude-3-5-haiku. */
export const patternModel = (e: PriceEntry) => e.model.replace(/\*/g, '')

/** Chat models of a provider in force at a time (embedding entries, priced at 0 output, excluded). */
export function chatModels(prices: PriceTable, provider: string, atMs: number): string[] {
  const day = new Date(atMs).toISOString().slice(0, 10)
  return [...new Set(prices.entries.filter((e) => e.provider === provider && e.effective_from <= day && e.output > 0).map(patternModel))]
}

export const usd = (x: number, places = 8) => Math.round(x * 10 ** places) / 10 ** places
