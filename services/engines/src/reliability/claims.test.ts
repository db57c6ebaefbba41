import { describe, expect, it } from 'vitest'
import { clauses, splitClaims, splitClaimsWithTopics } from './claims.js'

describe('splitClaims', () => {
  it('splits sentences and keeps assertions', () => {
    expect(splitClaims('Refunds take 5 business days. The fee is $10 per order.')).toEqual(['Refunds take 5 business days.', 'The fee is $10 per order.'])
  })

  it('stops at a limit: the first claims, the same as without it', () => {
    const text = Array.from({ length: 50 }, (_, i) => `- Crate ${i} weighs ${i + 1} kg. It ships on day ${i + 1}.`).join('\n')
    expect(splitClaimsWithTopics(text, 7)).toEqual(splitClaimsWithTopics(text).slice(0, 7))
    expect(splitClaimsWithTopics(text, 7)).toHaveLength(7)
  })

  it('drops greetings, questions, offers and intro lines', () => {
    const text = 'Hi there! Here is what I found:\n- The warranty lasts 2 years.\nDoes that answer your question? Let me know if you need anything else. I hope this helps!'
    expect(splitClaims(text)).toEqual(['The warranty lasts 2 years.'])
  })

  it('reads bullets and numbered lists, without markdown', () => {
    expect(splitClaims('## Summary\n1. **Basic plan** costs $10 per month.\n* Plus plan costs $20 per month.')).toEqual(['Basic plan costs $10 per month.', 'Plus plan costs $20 per month.'])
  })

  it('skips reference lists and source lines', () => {
    const text = 'Webb launched in December 2021 [1].\n\n[1] https://www.nasa.gov/mission/webb/\nSources: https://example.com/a'
    expect(splitClaims(text)).toEqual(['Webb launched in December 2021 [1].'])
  })

  it('keeps abbreviations inside one sentence', () => {
    expect(splitClaims('Use a strong key, e.g. RSA 4096 bits for signing keys. Keys rotate every 90 days.')).toEqual([
      'Use a strong key, e.g. RSA 4096 bits for signing keys.',
      'Keys rotate every 90 days.',
    ])
  })

  it('keeps a greeting that opens a real statement, drops a bare one', () => {
    expect(splitClaims('Sure, the standard plan allows 60 requests per minute.')).toHaveLength(1)
    expect(splitClaims('Sure!')).toEqual([])
    expect(splitClaims('')).toEqual([])
  })
})

describe('clauses', () => {
  it('splits a sentence that joins independent statements, each able to stand alone', () => {
    expect(clauses('NSAIDs may reduce the effect of lisinopril, and using both can strain the kidneys.')).toEqual([
      'NSAIDs may reduce the effect of lisinopril',
      'and using both can strain the kidneys.',
    ])
    expect(clauses('The plan costs $20 per month; overage is billed at $0.10 per GB.')).toHaveLength(2)
    expect(clauses('Both interact: NSAIDs raise blood pressure in treated patients.')).toEqual(['Both interact: NSAIDs raise blood pressure in treated patients.'])
  })

  it('keeps a short side joined to its neighbour', () => {
    expect(clauses('Refunds take 5 business days, and sometimes longer.')).toEqual(['Refunds take 5 business days, and sometimes longer.'])
    expect(splitClaims('Bring ID, and your passport must be valid for six months after arrival.')).toHaveLength(1)
  })
})


describe('the assistant\'s own advice', () => {
  it('is no claim, while a fact beside it is', () => {
    expect(splitClaims("I'd replace the batteries and install the update. The T9 firmware is 4.2.1. Sorry to hear that! It's always a good idea to save more.")).toEqual(['The T9 firmware is 4.2.1.'])
  })
})

describe('lead-ins and advice inside a sentence', () => {
  it('drops a label before a colon or in bold, keeping what it labels', () => {
    expect(splitClaims('**Lead authority.** Because our main establishment is in Munich, the lead authority is BayLDA.\nOne thing to flag: the fee is $20.')).toEqual([
      'Because our main establishment is in Munich, the lead authority is BayLDA.',
      'the fee is $20.',
    ])
    // A lead-in with a figure or a verb says something.
    expect(splitClaims('**Node 20:** supported until April 2027.')).toEqual(['Node 20: supported until April 2027.'])
  })

  it('drops "it\'s worth …ing" advice, not the fact before it', () => {
    expect(splitClaims("Receiving may turn the extra pallets away, so it's worth checking with Brightfield Snacks before the truck leaves.")).toEqual([
      'Receiving may turn the extra pallets away',
    ])
    expect(splitClaims('The house is worth $400,000.')).toEqual(['The house is worth $400,000.'])
  })
})

describe('splitClaimsWithTopics', () => {
  it('gives each claim the label of its bullet or section', () => {
    const text = '## Rewards Visa   \n- 0% for 18 months with a 3% fee.\n\n**Flex card:** 0% for 21 months, then 23.24%.\n- Flex Mastercard: the fee is 5% of the balance.'
    expect(splitClaimsWithTopics(text)).toEqual([
      { claim: '0% for 18 months with a 3% fee.', topic: 'Rewards Visa' },
      { claim: 'Flex card: 0% for 21 months, then 23.24%.', topic: 'Flex card' },
      // (a label of two words stays with its claim, which names the entity itself)
      { claim: 'Flex Mastercard: the fee is 5% of the balance.', topic: 'Rewards Visa' },
    ])
  })
})

describe('tables', () => {
  it('are a claim per row, about the thing its first cell names; the header and the rule under it assert nothing', () => {
    const text = 'Here are the options:\n\n| Card | Intro APR | Months |\n|---|:---:|---|\n| Harbor Rewards Visa | 0% | 18 |\n| **Flex Mastercard** | 0% | 21 |'
    expect(splitClaimsWithTopics(text)).toEqual([
      { claim: '| Harbor Rewards Visa | 0% | 18 |', topic: 'Harbor Rewards Visa', reading: 'Harbor Rewards Visa: Intro APR 0%, Months 18' },
      { claim: '| Flex Mastercard | 0% | 21 |', topic: 'Flex Mastercard', reading: 'Flex Mastercard: Intro APR 0%, Months 21' },
    ])
  })
})

describe('a table row read with its header', () => {
  it('puts a unit the header gives in brackets after a bare figure, keeps other brackets, and skips dashes', () => {
    const text = '| Namespace | Cost (EUR) | Window (Thu 15 Jun) | Note |\n|---|---|---|---|\n| ml-inference | 11,094.80 | 08:00 | — |'
    expect(splitClaimsWithTopics(text)).toEqual([{ claim: '| ml-inference | 11,094.80 | 08:00 | — |', topic: 'ml-inference', reading: 'ml-inference: Cost 11,094.80 EUR, Window (Thu 15 Jun) 08:00' }])
  })
})
