/**
 * Clauses an answer adds to a sentence ("…, a saving of 280 g", "…, which comes to $240"), labels in bold, and the
 * comparisons people write that are no comparison of two values ("no later than", "under SCC Module 3").
 */
import { describe, expect, it } from 'vitest'
import { splitClaims } from './claims.js'
import { relation } from './relations.js'
import { contentReliability } from './index.js'
import { chat, nextTraceId, tool, verdicts, viewOf } from './test-view.js'

describe('a clause that adds to the sentence before it', () => {
  it('is a claim of its own, computed from the figures of the clause it continues', async () => {
    const tents = { tents: [{ name: 'Ridgeback 2P', trail_weight_g: 1190 }, { name: 'Larchmont 2P', trail_weight_g: 1470 }] }
    const answer = 'The Ridgeback weighs 1,190 g against 1,470 g for the Larchmont, a saving of 280 g.'
    expect(splitClaims(answer)).toEqual(['The Ridgeback weighs 1,190 g against 1,470 g for the Larchmont', 'a saving of 280 g.'])
    expect(await verdicts(tents, answer)).toEqual(['supported', 'supported'])
  })

  it('is judged apart, so a wrong remainder sinks only itself', async () => {
    const plan = { plan: 'Share 50', shared_data_gb: 50, used_gb: 44.4 }
    expect(await verdicts(plan, "You've used 44.4 GB of your 50 GB, leaving 6.4 GB.")).toEqual(['supported', 'unsupported'])
  })

  it('counts an interval of clock times across midnight', async () => {
    const work = { mast: 'BE-1187', work_start: '22:00', work_end: '03:00' }
    expect(await verdicts(work, 'Planned work on mast BE-1187 starts at 22:00 and ends at 03:00, lasting five hours.')).toEqual(['supported', 'supported'])
  })

  it('splits where each side has a subject of its own, "both" and "each" too', () => {
    expect(splitClaims('Both have two vestibules, and the Larchmont is freestanding.')).toEqual(['Both have two vestibules', 'and the Larchmont is freestanding.'])
  })

  it('splits at a dash before a figure', () => {
    expect(splitClaims('Your lease ends on Wednesday, December 1 — 29 days from today.')).toEqual(['Your lease ends on Wednesday, December 1', '29 days from today.'])
  })
})

describe('a bold label', () => {
  it('is the subject of a value that says little alone', async () => {
    expect(splitClaims('**PAC code:** `BWX482913`\n- **Price:** £54.85\n**Basic plan:** costs $10 a month.')).toEqual(['PAC code: BWX482913', 'Price: £54.85', 'costs $10 a month.'])
    expect(await verdicts({ pac_code: 'BWX482913', status: 'issued' }, '**PAC code:** `BWX482913`')).toEqual(['supported'])
  })

  it('is the subject of a figure it labels, and unnamed rows holding a distinctive figure are its records', async () => {
    expect(splitClaims('- **Repeat-customer rate:** 37.1%, down 1.3 points from 38.4%.')).toEqual(['Repeat-customer rate: 37.1%, down 1.3 points from 38.4%.'])
    const kpis = { rows: [{ month: '2027-09', gmv_eur: 1842300, orders: 48210 }, { month: '2027-10', gmv_eur: 2015750, orders: 51380 }] }
    expect(await verdicts(kpis, '- **GMV:** €2,015,750, up 9.4% from €1,842,300.\n- **Orders:** 51,380, up 3,170.')).toEqual(['supported', 'supported'])
    // (named records too, where the claim names none of them)
    const options = { current_payment_usd: 2551.96, options: [{ option: 'recast', new_payment_usd: 2297.36 }, { option: 'prepay', new_payment_usd: 2551.96 }] }
    expect(await verdicts(options, 'Your payment would drop from $2,551.96 to $2,297.36 a month.')).toEqual(['supported'])
  })

  it('with a grade of one letter is said only by that letter', async () => {
    const listing = { listing_id: 'RM-220871', council_tax_band: 'E', tenure: 'freehold' }
    expect(await verdicts(listing, '**Council tax band:** E')).toEqual(['supported'])
    expect(await verdicts(listing, '**Council tax band:** D')).not.toEqual(['supported'])
  })

  it('an introduction ending in a colon is a claim when it states a time or an amount', () => {
    expect(splitClaims('Canola bids as of 10:15 this morning:\n- Weyburn pays more.\nHere are your options:\n- Estevan pays less.')).toEqual(['Canola bids as of 10:15 this morning:', 'Weyburn pays more.', 'Estevan pays less.'])
  })
})

describe('comparisons that are not', () => {
  it('reads "no later than" and "no more than" as a bound, not two values compared', async () => {
    expect(await verdicts({ notice: 'rent increase', serve_by: '2027-12-02' }, 'Serve the notice no later than December 2, 2027.')).toEqual(['supported'])
  })

  it('reads a denied comparison as denied', async () => {
    expect(await verdicts({ service_due: '2027-10-14', inspected_on: '2027-09-20' }, "The service isn't due before the inspection.")).toEqual(['supported'])
  })

  it('takes a difference in points, a numbered name and another clause\'s date for no side of a comparison', () => {
    expect(relation("That's two points above July and three above September.", [], [])).toBeNull()
    expect(relation("Pellucid Cloud isn't on the list in Annex 3 (Twilio and Zendesk under SCC Module 3).", [], [])).toBeNull()
    expect(relation('Once the September 10 grants pay your charges, you get $2,952.50 back, then the loan after September 24.', [], [])).toBeNull()
  })

  it('reads both sides\' figures past a decimal point, and finds them swapped between the entities', async () => {
    expect(relation('The Larchmont gives you more room (2.9 m² of floor versus 2.7 m²)', [], [])?.figures).toHaveLength(2)
    const glaciers = { glaciers: [{ name: 'Morteratsch', area_km2: 14.6 }, { name: 'Pasterze', area_km2: 14.9 }] }
    expect(await verdicts(glaciers, "The Morteratsch is the smaller of the two, at 14.6 km² against Pasterze's 14.9 km².")).toEqual(['supported'])
    expect(await verdicts(glaciers, "The Pasterze is the smaller of the two, at 14.6 km² against Morteratsch's 14.9 km².")).toEqual(['contradicted'])
  })
})

describe('a window a field\'s name gives', () => {
  it('is the period of its value', async () => {
    expect(await verdicts({ field: 'North 160', et_last_7d_in: 1.89 }, 'Crop use over the last 7 days was 1.89 inches.')).toEqual(['supported'])
  })
})

describe('areas', () => {
  it('are read in text and in field names, and rates per hectare too', async () => {
    expect(await verdicts({ permit: 'residential addition', area_sqft: 420 }, 'The extension is 420 sq ft (about 39 m²).')).toEqual(['supported'])
    const field = await verdicts({ fields: [{ field: 'Church Piece', area_ha: 17.2, yield_t_ha: 7.4 }] }, 'Church Piece, 17.2 ha, yielded 7.4 t/ha.')
    expect(new Set(field)).toEqual(new Set(['supported']))
  })
})

describe('a misread amount', () => {
  it('is the evidence\'s digits in another order, whatever arithmetic happens to meet it', async () => {
    const parcel = { parcel: '114-22-0917', assessed_value_usd: 412000, exemption_usd: 9000 }
    // (412,000 + 9,000 is 421,000 too: chance, not the point of the sentence)
    expect(await verdicts(parcel, 'Your home is assessed at $421,000.')).toEqual(['contradicted'])
    expect(await verdicts(parcel, 'Your home is assessed at $412,000.')).toEqual(['supported'])
  })
})

describe('denials in other words', () => {
  it('reads "instead of" before a verb as a denial, an answer\'s "No —" as no denial of what follows', async () => {
    const plan = { plan: 'Share 50', shared_data_gb: 50, after_cap: { overage_charged: false, throttled_to_kbps: 256 } }
    expect(await verdicts(plan, 'Once the shared 50 GB is gone, speeds are slowed to 256 kbps instead of charging you overage.')).toEqual(['supported'])
    expect(await verdicts({ dataset: 'finance_daily', landed_late: true, late_by_min: 82 }, 'No — finance_daily landed late today.')).toEqual(['supported'])
    // (an alternative amount is no denial)
    expect(await verdicts({ base_rate_usd: 24, overtime_rate_usd: 36 }, 'Overtime pays $36 an hour instead of $24.')).not.toContain('contradicted')
  })
})

describe('a flag over a list', () => {
  it('is counted: how many items it holds for, and how many not', async () => {
    const modules = { modules: [{ module: 'Machine Learning I', approved: true }, { module: 'Computer Vision', approved: true }, { module: 'German A2', approved: true }, { module: 'Robotics Lab', approved: false }] }
    expect(await verdicts(modules, 'Three of the four modules are already approved.')).toEqual(['supported'])
    expect(await verdicts(modules, 'Two of the four modules are already approved.')).not.toEqual(['supported'])
  })
})

describe('a count of the things a list holds', () => {
  it('is backed by the list\'s size, and "together" adds up its items', async () => {
    const fleet = { vehicles: [{ vehicle_id: 'BW-14', distance_km: 1184.6 }, { vehicle_id: 'BW-22', distance_km: 962.3 }] }
    expect(await verdicts(fleet, 'BW-14 drove about 736 miles and BW-22 about 598 miles. Together the two vans covered about 1,334 miles.')).toEqual(['supported', 'supported'])
  })
})

describe('confidence in arithmetic', () => {
  it('is lower for a computed figure of few significant digits, which arithmetic meets by chance more often', async () => {
    const confidences = async (result: unknown, answer: string) => {
      const v = viewOf([{ id: '1'.repeat(16), attrs: tool('lookup', {}, result) }, { id: '2'.repeat(16), attrs: chat([['user', 'Tell me.']], answer) }], nextTraceId())
      return (await contentReliability(v)).claims.map((c) => `${c.verdict} ${c.confidence}`)
    }
    expect(await confidences({ base_fee_usd: 12, late_fee_usd: 8 }, 'With the late fee you pay $20 in total.')).toEqual(['supported 0.68'])
    expect(await confidences({ base_fee_usd: 1284.5, late_fee_usd: 96.25 }, 'With the late fee you pay $1,380.75 in total.')).toEqual(['supported 0.87'])
  })
})

describe('a phrase that adds a fact after a comma', () => {
  it('is a claim of its own, so a wrong addition sinks only itself', async () => {
    expect(splitClaims('filed at 2,310 words, with images ready to go.')).toEqual(['filed at 2,310 words', 'with images ready to go.'])
    expect(splitClaims('Doors open at 6:30 pm and the quartet starts at 7:00 pm.')).toEqual(['Doors open at 6:30 pm', 'the quartet starts at 7:00 pm.'])
    const item = { item_id: 'F-3301', title: 'Summer Festival Guide', word_count: 2310, images_ready: false }
    expect(await verdicts(item, 'The Summer Festival Guide was filed at 2,310 words, with images ready to go.')).toEqual(['supported', 'contradicted'])
  })

  it('stays joined where the comma is a date\'s, a condition\'s, an opening phrase\'s or a comparison\'s', () => {
    for (const sentence of [
      'It will be paid on Friday, October 30.',
      'If you cancel before 5 June, you get a full refund of $40.',
      "At your combined tax rate of 38.5%, you'll save about $131 a month.",
      'The estimated lock is 0.35 seconds, well under your 2-second limit.',
      'August was the wettest month, with 1.75 inches of rain.',
      "Loratadine is a good choice for work, since it's non-drowsy.",
      'Its trail weight is 1,190 g, about 2.6 lb.',
    ])
      expect(splitClaims(sentence)).toEqual([sentence])
  })

  it('is about the entity of the clause it continues', async () => {
    const plans = { plans: [{ name: 'Plus', monthly_usd: 4.99, quota_gb: 200 }, { name: 'Premium', monthly_usd: 9.99, quota_gb: 2000 }] }
    expect(splitClaims('Premium costs $9.99 a month, with 2,000 GB of storage.')).toHaveLength(2)
    expect(await verdicts(plans, 'Premium costs $9.99 a month, with 2,000 GB of storage.')).toEqual(['supported', 'supported'])
    expect(await verdicts(plans, 'Premium costs $9.99 a month, with 200 GB of storage.')).not.toEqual(['supported', 'supported'])
  })
})

describe('a comparison with a figure written with thousands separators', () => {
  it('reads the whole figure on either side of the word', () => {
    const pool: Parameters<typeof relation>[1] = []
    expect(relation('your income of £138,400 is under the £250,000 cap', pool, pool)?.holds).toBe(true)
    expect(relation('your income of £268,400 is under the £250,000 cap', pool, pool)?.holds).toBe(false)
    expect(relation('the bigger loan, $1,250 against $1,100', pool, pool)?.figures?.[1]?.value).toBe(1100)
  })

  it('compares the figure of its own clause, not the one a clause before it gives', () => {
    const pool: Parameters<typeof relation>[1] = []
    // (the $5 is the fee's: the balance this clause compares is not stated, so nothing is decided)
    expect(relation("Calder's $5 fee won't apply to you, since your balance stays above the $500 waiver threshold", pool, pool)?.holds).not.toBe(false)
    expect(relation('The lock is 0.35 seconds, well under your 2-second limit', pool, pool)?.holds).toBe(true)
  })
})

describe('"before" with nothing after it', () => {
  it('is an adverb, not an order of two times', async () => {
    const summit = { event: 'Game Summit', days: '2028-07-14 to 2028-07-15', badge_collection: '2028-07-13 14:00-19:00' }
    expect(await verdicts(summit, 'You can collect badges the day before, on Thursday 13 July.')).not.toContain('contradicted')
  })
})

describe('a system prompt', () => {
  it('states facts, but its instructions and the role it gives are no evidence', async () => {
    const system = 'You are the currency checker for Aspen Ridge Flight Center. Today is Monday 2028-03-20. Always check the pilot\'s logbook before saying a pilot is night current.'
    const v = viewOf([{ id: '2'.repeat(16), attrs: chat([['system', system], ['user', 'Am I night current?']], "I checked your logbook and you're night current. Today is Monday 20 March 2028.") }], nextTraceId())
    expect((await contentReliability(v)).claims.map((c) => c.verdict)).toEqual(['unsupported', 'supported'])
  })
})

describe('figures of a voyage and of a breakdown', () => {
  it('reads nautical miles and knots, and doubles a one-way figure for a round trip', async () => {
    const route = { route: 'outside, via Muskeget Channel', distance_nm: 82, cruise_kt: 24 }
    expect(await verdicts(route, "It's 82 nm each way, 164 nm round trip, at 24 knots.")).toEqual(['supported'])
    expect(await verdicts(route, "It's 82 nm each way, 184 nm round trip.")).not.toEqual(['supported'])
  })

  it('adds up the fields of one object to the total a claim states', async () => {
    const week = { part: 'HX-220', defects: { short_shot: 96, flash: 71, sink_marks: 45 } }
    expect(await verdicts(week, 'There were 212 defects in all.')).toEqual(['supported'])
    expect(await verdicts(week, 'There were 221 defects in all.')).not.toEqual(['supported'])
  })

  it('names a record by a number and the key it sits under, as "Line 3"', async () => {
    const lines = { lines: [{ line: 3, units_produced: 18400, cycle_s: 22.5 }, { line: 4, units_produced: 14800, cycle_s: 24.0 }] }
    expect(await verdicts(lines, 'Line 3 produced 18,400 units.')).toEqual(['supported'])
    expect(await verdicts(lines, 'Line 4 produced 18,400 units.')).not.toEqual(['supported'])
  })
})
