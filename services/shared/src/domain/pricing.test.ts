import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findPrice, loadPriceTable, priceTokens, type PriceTable } from './pricing.js'

const at = (day: string) => Date.parse(`${day}T12:00:00Z`)
const tokens = (input: number, output: number, extra: Partial<{ cacheRead: number; cacheWrite: number; reasoning: number }> = {}) => ({ input, output, cacheRead: 0, cacheWrite: 0, reasoning: 0, ...extra })

describe('price table', () => {
  const table = loadPriceTable()

  it('ships a valid, versioned table', () => {
    expect(table.version).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(table.entries.length).toBeGreaterThan(10)
  })

  it('matches dated model versions, the most specific pattern first', () => {
    expect(findPrice(table, ['openai'], 'gpt-4o-2024-08-06', at('2025-09-01'))).toMatchObject({ model: 'gpt-4o*', input: 2.5 })
    expect(findPrice(table, ['openai'], 'gpt-4o-mini-2024-07-18', at('2025-09-01'))).toMatchObject({ model: 'gpt-4o-mini*', input: 0.15 })
    expect(findPrice(table, ['openai'], 'GPT-4o', at('2025-09-01'))).toMatchObject({ model: 'gpt-4o*' })
    expect(findPrice(table, ['aws.bedrock'], 'anthropic.claude-sonnet-4-20250514-v1:0', at('2025-09-01'))).toMatchObject({ input: 3 })
  })

  it('applies the entry in force at the span start (effective_from)', () => {
    expect(findPrice(table, ['openai'], 'gpt-4o', at('2024-06-01'))).toMatchObject({ input: 5 })
    expect(findPrice(table, ['openai'], 'gpt-4o', at('2024-11-01'))).toMatchObject({ input: 2.5 })
    expect(findPrice(table, ['openai'], 'gpt-4o', at('2024-01-01'))).toBeNull()
  })

  it('tries the providers in order: the workspace\'s effective provider, then the span\'s', () => {
    expect(findPrice(table, ['azure', 'openai'], 'gpt-4o-mini', at('2025-09-01'))).toMatchObject({ provider: 'azure', input: 0.165 })
    expect(findPrice(table, ['openai', 'anthropic'], 'claude-sonnet-4-20250514', at('2025-09-01'))).toMatchObject({ provider: 'anthropic' })
    expect(findPrice(table, ['openai'], 'claude-sonnet-4', at('2025-09-01'))).toBeNull()
  })

  it('answers repeated lookups from its memo exactly as the first time, per UTC day, providers and table', () => {
    // The first and last millisecond of the day gpt-4o's second price took effect, and the day before.
    const dayStart = Date.parse('2024-10-02T00:00:00Z')
    for (let pass = 0; pass < 2; pass++) {
      expect(findPrice(table, ['openai'], 'gpt-4o', dayStart - 1)).toMatchObject({ input: 5 })
      expect(findPrice(table, ['openai'], 'gpt-4o', dayStart)).toMatchObject({ input: 2.5 })
      expect(findPrice(table, ['openai'], 'gpt-4o', dayStart + 86_400_000 - 1)).toMatchObject({ input: 2.5 })
      expect(findPrice(table, ['azure', 'openai'], 'gpt-4o', dayStart)).toMatchObject({ provider: 'azure' })
      expect(findPrice(table, ['openai', 'azure'], 'gpt-4o', dayStart)).toMatchObject({ provider: 'openai' })
    }
    // Another table (another version) is looked up afresh, not answered from this one's memo.
    const other: PriceTable = { version: 'other', currency: 'USD', entries: [{ provider: 'openai', model: 'gpt-4o', effective_from: '2020-01-01', input: 1, output: 1 }] }
    expect(findPrice(other, ['openai'], 'gpt-4o', dayStart)).toMatchObject({ input: 1 })
  })

  it('keeps answering right past its memo bound (many distinct client-chosen model names)', () => {
    for (let i = 0; i < 25_000; i++) findPrice(table, ['openai'], `gpt-4o-custom-${i}`, at('2025-09-01'))
    expect(findPrice(table, ['openai'], 'gpt-4o-mini', at('2025-09-01'))).toMatchObject({ input: 0.15 })
    expect(findPrice(table, ['openai'], 'gpt-4o-custom-3', at('2025-09-01'))).toMatchObject({ model: 'gpt-4o*' })
  })
})

describe('priceTokens', () => {
  const table: PriceTable = {
    version: 'test-1',
    currency: 'USD',
    entries: [{ provider: 'p', model: 'm*', effective_from: '2020-01-01', input: 2, output: 10, cache_read: 0.5, cache_write: 4, reasoning: 20 }],
  }

  it('prices uncached input, cache reads and writes, output and reasoning each at their own price', () => {
    // 1M input of which 200k read from cache and 100k written; 500k output of which 100k reasoning.
    const c = priceTokens(table, ['p'], 'm-1', at('2025-01-01'), tokens(1_000_000, 500_000, { cacheRead: 200_000, cacheWrite: 100_000, reasoning: 100_000 }))
    expect(c).toEqual({ costUsd: 0.7 * 2 + 0.2 * 0.5 + 0.1 * 4 + 0.4 * 10 + 0.1 * 20, priced: true, pricingVersion: 'test-1' })
  })

  it('prices an unknown model at 0 and says so', () => {
    expect(priceTokens(table, ['p'], 'other', at('2025-01-01'), tokens(1000, 1000))).toEqual({ costUsd: 0, priced: false, pricingVersion: 'test-1' })
    expect(priceTokens(table, ['p'], '', at('2025-01-01'), tokens(1000, 1000)).priced).toBe(false)
  })

  it('loads an operator table from a file and rejects an invalid one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prices-'))
    writeFileSync(join(dir, 'ok.json'), JSON.stringify(table))
    expect(loadPriceTable(join(dir, 'ok.json')).version).toBe('test-1')
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...table, entries: [{ provider: 'p', model: 'm', effective_from: 'soon', input: -1, output: 1 }] }))
    expect(() => loadPriceTable(join(dir, 'bad.json'))).toThrow(/effective_from|input/)
  })
})
