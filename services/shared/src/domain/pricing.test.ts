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
