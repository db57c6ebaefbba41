import { describe, expect, it } from 'vitest'
import { contentReliability } from './index.js'
import { quantities } from './quantity.js'
import { sameValue } from './compare.js'
import { chat, nextTraceId, tool, verdicts, verdictsOn, verdictsOnDoc, viewOf } from './test-view.js'

describe('flags of list items', () => {
  const journeys = (second: boolean) => ({
    journeys: [
      { train: 'TGV INOUI 9241', seat_reservation_included: true },
      { train: 'Frecciarossa 9553', seat_reservation_included: second },
    ],
  })

  it('reads the list key as the collection, not a part the claim must name', async () => {
    expect(await verdicts(journeys(true), 'Seat reservations are included in both fares.')).toEqual(['supported'])
    expect(await verdicts(journeys(false), 'Seat reservations are included in both fares.')).toEqual(['contradicted'])
  })
})

describe('the entity a claim refers to', () => {
  const scan = {
    vulnerabilities: [
      { package: 'lodash', severity: 'critical', exploit_available: false },
      { package: 'axios', severity: 'high', exploit_available: true },
    ],
  }

  it('is the previous claim\'s when a pronoun anywhere refers to it', async () => {
    expect(await verdicts(scan, 'The critical issue is in lodash. There is no known public exploit for it.')).toEqual(['supported', 'supported'])
    expect(await verdicts(scan, 'The critical issue is in lodash. There is a known public exploit for it.')).toEqual(['supported', 'contradicted'])
  })

  it('is not the entity a claim contrasts itself with', async () => {
    expect(await verdicts(scan, 'The high-severity issue is in axios. Unlike the lodash one, it does have a known exploit.')).toEqual(['supported', 'supported'])
  })
})

describe('flags named by a verb phrase', () => {
  it('reads "carry over" as rollover and "ask for" as request', async () => {
    expect(await verdicts({ category: 'groceries', rollover: false }, "Unused grocery budget doesn't carry over.")).toEqual(['supported'])
    expect(await verdicts({ category: 'groceries', rollover: false }, 'Unused grocery budget carries over.')).toEqual(['contradicted'])
    expect(await verdicts({ outage: 'OUT-7', credit_on_request: true }, 'You can ask for a credit.')).toEqual(['supported'])
  })
})

describe('a comparison stating both sides\' figures', () => {
  const laptops = {
    products: [
      { sku: 'AERO-14', name: 'Aero 14', battery_wh: 72 },
      { sku: 'VECTOR-15', name: 'Vector 15', battery_wh: 90 },
    ],
  }

  it('compares the figures and finds each in the evidence', async () => {
    expect(await verdicts(laptops, 'The Vector 15 has the bigger battery, 90 Wh against 72 Wh.')).toEqual(['supported'])
    expect(await verdicts(laptops, 'The Vector 15 has the smaller battery, 90 Wh against 72 Wh.')).toEqual(['contradicted'])
  })

  it('reads the first figure as the claim\'s entity\'s', async () => {
    expect(await verdicts(laptops, 'The Aero 14 has the bigger battery, 90 Wh against 72 Wh.')).not.toEqual(['supported'])
  })

  it('reads a bare other side in the first side\'s unit', async () => {
    const ndas = { documents: [{ id: 'NDA-Corvid', party: 'Corvid Labs', survival_months: 60 }, { id: 'NDA-Helix', party: 'Helix Analytics', survival_months: 36 }] }
    expect(await verdicts(ndas, "Corvid's obligations survive longer, five years against Helix's three.")).toEqual(['supported'])
  })
})

describe('a fact backs words by its value', () => {
  const ndas = {
    documents: [
      { doc: 'NDA-Helix-2026', counterparty: 'Helix Analytics', governing_law: 'England and Wales' },
      { doc: 'NDA-Corvid-2025', counterparty: 'Corvid Labs', governing_law: 'Delaware' },
    ],
  }

  it('does not back a claim giving another value of the attribute by the entity and key alone', async () => {
    expect(await verdicts(ndas, 'The Corvid NDA is governed by English law.')).toEqual(['unsupported'])
    expect(await verdicts(ndas, 'The Corvid NDA is governed by Delaware law.')).toEqual(['supported'])
  })

  it('does not take a shared code prefix or a count of values for the value', async () => {
    const rollout = { deployment: 'api', current_image: 'registry.example.com/shop/api:v1.9.0', message: 'Waiting for deployment rollout to finish' }
    expect(await verdicts(rollout, 'Your rollback to v1.8.2 has finished.')).toEqual(['unsupported'])
  })
})

describe('chained arithmetic', () => {
  const quote = { transfer: 'T-1', amount_eur: 2500, rate_usd_per_eur: 1.0842, fee_usd: 150 }

  it('adds a figure the answer computed to one of the evidence', async () => {
    expect(await verdicts(quote, "€2,500 is $2,710.50 at today's rate. With the $150 fee you pay $2,860.50 in total.")).toEqual(['supported', 'supported'])
    expect((await verdicts(quote, "€2,500 is $2,710.50 at today's rate. With the $150 fee you pay $3,400.00 in total."))[1]).not.toBe('supported')
    // Within 1% of the answer's $2,710.50 at the rate, but a total to the cent must be right to the cent.
    expect((await verdicts(quote, "€2,500 is $2,710.50 at today's rate. With the $150 fee you pay $2,960.50 in total."))[1]).not.toBe('supported')
  })
})

describe('values keyed by year', () => {
  it('are named by their year in a comparison', async () => {
    const series = { series: 'global temperature anomaly', unit: 'degC', recent: { '2022': 0.24, '2023': 0.6, '2024': 0.72 } }
    expect(await verdicts(series, '2023 was cooler than 2022.')).toEqual(['contradicted'])
    expect(await verdicts(series, '2024 was warmer than 2023.')).toEqual(['supported'])
  })
})

describe('a figure restating another of the claim', () => {
  const quote = { mode: 'ocean', carrier: 'Maersk', transit_days: 32 }

  it('is backed with it when it holds of it', async () => {
    expect(await verdicts(quote, 'It takes 32 days, more than four weeks.')).toEqual(['supported'])
    expect(await verdicts(quote, 'It takes 32 days, more than five weeks.')).not.toEqual(['supported'])
  })
})

describe('a figure in a result\'s prose', () => {
  it('yields to a typed field of its own record, not of another', async () => {
    const run = { run_id: 'R-5812', duration_s: 252, failed_tests: [{ name: 'test_checkout_refund', error: 'TimeoutError: no response after 30000 ms' }] }
    expect(await verdicts(run, 'test_checkout_refund timed out after 30 seconds.')).toEqual(['supported'])
    const booking = { booking: 'B-1', time: '20:00', note: '19:30 fully booked; next slot offered' }
    expect(await verdicts(booking, 'Your table B-1 is booked for 19:30.')).not.toEqual(['supported'])
  })
})

describe('a call\'s status', () => {
  const call = async (name: string, result: unknown, answer: string) => {
    const id = nextTraceId()
    const v = viewOf([
      { id: '1'.repeat(16), attrs: tool(name, { user: 'U-1' }, result) },
      { id: '2'.repeat(16), attrs: chat([['user', 'Help.']], answer) },
    ], id)
    return (await contentReliability(v)).claims.map((c) => c.verdict)
  }

  it('speaks for the action the tool is named for, in the status\'s own word', async () => {
    expect(await call('send_reset_link', { status: 'sent' }, "I've sent a password reset link to your email.")).toEqual(['supported'])
    expect(await call('lock_account', { status: 'failed' }, "I've locked your account.")).not.toEqual(['supported'])
  })
})

describe('numbers that name things', () => {
  it('are no figures to back: a 401(k), a Section 7(b)', async () => {
    const stub = { period: '2026-11-15', net_usd: 2400.42, retirement_401k_usd: 189.23 }
    expect(await verdicts(stub, 'After taxes and the 401(k), your take-home pay is $2,400.42.')).toEqual(['supported'])
    expect(quantities('Under Section 7(b) you owe $40.').map((q) => q.value)).toEqual([40])
  })
})

describe('structured results read as a person reads them', () => {
  it('reads speeds in any unit, and a frequency as the interval it implies', async () => {
    expect(await verdicts({ wind_kmh: 18, gust_speed_km_h: 40 }, 'The wind is around 11 mph. Gusts reach 25 mph.')).toEqual(['supported', 'supported'])
    expect(await verdicts({ drug: 'Calpol', dosing: '250 mg every 8 hours' }, 'You can give Calpol three times a day.')).toEqual(['supported'])
    expect(await verdicts({ drug: 'Calpol', dosing: '250 mg every 8 hours' }, 'You can give Calpol five times a day.')).not.toEqual(['supported'])
    const leaflet = quantities('250 mg every 8 hours')[0]!
    expect(leaflet.per?.amount).toBe(8 * 3600)
    // A flow or a price per hour is no dose every hour; a dose "per 8 hours" or "every hour" is.
    const hourly = quantities('once an hour')[0]!
    for (const flow of ['250 mg per hour', '$20 per hour']) expect(sameValue(hourly, quantities(flow)[0]!)).toBe(false)
    expect(sameValue(hourly, quantities('250 mg every hour')[0]!)).toBe(true)
    expect(sameValue(quantities('three times a day')[0]!, quantities('250 mg per 8 hours')[0]!)).toBe(true)
    expect(await verdicts({ drug: 'Heparin', infusion: '250 mg per hour' }, 'Heparin is given once an hour.')).not.toEqual(['supported'])
  })

  it('takes a measure of zero as absence, never as a contradiction of "no"', async () => {
    expect(await verdicts({ temp_c: -4, precipitation_mm: 0 }, 'No precipitation is expected.')).toEqual(['supported'])
    expect(await verdicts({ temp_c: -4, precipitation_mm: 3 }, 'No precipitation is expected.')).not.toEqual(['supported'])
  })

  it('reads a state said of the flag itself ("turned off", "inactive") as its denial', async () => {
    expect(await verdicts({ plan: 'Pro', auto_renew: true }, 'Auto-renew is turned off.')).toEqual(['contradicted'])
    expect(await verdicts({ plan: 'Pro', auto_renew: false }, 'Auto-renew is turned off.')).toEqual(['supported'])
    expect(await verdicts({ plan: 'Pro', auto_renew: true }, 'Auto-renew is on.')).toEqual(['supported'])
  })

  it('reads an amount for a period as money per that period', async () => {
    const quote = { current_premium_annual: 1380, new_premium_annual: 1104 }
    expect(await verdicts(quote, 'The new premium is $92 a month.')).toEqual(['supported'])
    expect(await verdicts(quote, 'The new premium is $97 a month.')).not.toEqual(['supported'])
    expect(await verdicts({ plan: 'Basic', price_month: 12 }, 'Basic costs $12 a month.')).toEqual(['supported'])
  })

  it('meets an allowance only with the same allowance, and a zero count only with a denial', async () => {
    const fare = { fare: 'Basic', checked_bags: 0, cabin_bag_kg: 8 }
    expect(await verdicts(fare, 'Your cabin bag can weigh up to 8 kg.')).toEqual(['supported'])
    expect(await verdicts(fare, 'Your cabin bag can weigh up to 10 kg.')).not.toEqual(['supported'])
    expect(await verdicts({ route: 'Riverside path', walk_min: 25 }, 'The Riverside path walk takes under 30 minutes.')).toEqual(['supported'])
    expect(await verdicts(fare, 'Basic includes one checked bag.')).not.toEqual(['supported'])
    expect(await verdicts(fare, 'Basic includes no checked bags.')).toEqual(['supported'])
  })

  it('moves a date by calendar months', async () => {
    expect(await verdicts({ purchased: '2025-03-01', warranty_months: 24 }, 'Your warranty runs until March 1, 2027.')).toEqual(['supported'])
    expect(await verdicts({ purchased: '2025-03-01', warranty_months: 24 }, 'Your warranty runs until March 9, 2027.')).not.toEqual(['supported'])
  })
})

describe('figures only the user gave', () => {
  it('are no conversion unless two of the claim\'s figures measure one thing', async () => {
    const id = nextTraceId()
    const v = viewOf([
      { id: '1'.repeat(16), attrs: tool('book_table', { restaurant: 'Lumiere', party: 4, time: '20:00' }, { ok: false, error: 'no availability' }) },
      { id: '2'.repeat(16), attrs: chat([['user', 'Book a table for 4 at 8pm at Lumiere']], 'Your table for four at Lumiere is booked for 8 pm.') },
    ], id)
    expect((await contentReliability(v)).claims.map((c) => c.verdict)).not.toContain('supported')
  })
})

describe('times and units as a reader takes them', () => {
  it('shows a UTC time in the zone the answer names, with daylight saving as the day has it', async () => {
    const r = { window_start: '2026-10-30T01:45:00Z', errors: 1157 }
    expect(await verdicts(r, 'The errors began at 6:45 pm Pacific.')).toEqual(['supported'])
    expect(await verdicts(r, 'The errors began at 5:45 pm Pacific.')).not.toEqual(['supported'])
    expect(await verdicts({ window_start: '2026-11-30T01:45:00Z' }, 'It started at 5:45 pm PT.')).toEqual(['supported'])
  })

  it('reads "after 9 am" as a bound a later time meets, and never an earlier one', async () => {
    const r = { connections: [{ train: 'EC 317', dep: '09:33' }] }
    expect(await verdicts(r, 'The EC 317 leaves after 9 am.')).toEqual(['supported'])
    expect(await verdicts(r, 'The EC 317 leaves after 10 am.')).not.toEqual(['supported'])
  })

  it('gives an object\'s unit to the measures under it, which are then no money', async () => {
    const r = { station: 'SEATTLE TACOMA INTL AP', unit: 'mm', monthly: [{ month: '2026-08', total: 44.5, days: 6 }] }
    expect(await verdicts(r, 'August had 1.75 inches of rain.')).toEqual(['supported'])
    expect(await verdicts(r, 'August had 2.5 inches of rain.')).not.toEqual(['supported'])
  })

  it('never backs a claim about one site with an item of another site\'s list', async () => {
    const r = { sites: [{ site: 'shop.example.com', incidents: [{ cause: 'database failover', duration_min: 95 }] }, { site: 'docs.example.com', incidents: [] }] }
    expect(await verdicts(r, 'docs.example.com had one incident lasting 95 minutes.')).not.toEqual(['supported'])
  })

  it('does not take a word of the results\' keys for an entity because a name holds it too', async () => {
    const r = { route: 'Denver -> Moab', distance_km: 571, stops: [{ station: 'Green River Fast Charge', charge_min: 18 }, { station: 'Glenwood Supercharger', charge_min: 22 }] }
    expect(await verdicts(r, 'The 355-mile drive needs two charging stops.')).toEqual(['supported'])
  })

  it('reads "needs" as required and "entitled" as eligible', async () => {
    expect(await verdicts({ train: 'EC 317', reservation_required: true }, 'It needs a seat reservation.')).toEqual(['supported'])
    expect(await verdicts({ train: 'EC 317', reservation_required: false }, 'It needs a seat reservation.')).toEqual(['contradicted'])
    expect(await verdicts({ refund_eligible: true }, "You're entitled to a refund.")).toEqual(['supported'])
  })
})

describe('a sentence under a heading', () => {
  it('gives every clause the heading\'s subject, so each entity keeps its own figure', async () => {
    const doc = 'Dental PPO: employee only $18.40; employee + spouse $36.80. Dental HMO: employee only $7.90; employee + spouse $15.80.'
    const answer = 'For employee + spouse, the dental PPO costs $36.80 a month and the HMO $15.80.'
    expect(await verdictsOnDoc(`Dental plans 2027, monthly employee contributions. ${doc}`, answer, 'What do the dental plans cost for me and my spouse?')).toEqual(['supported'])
  })
})

describe('figures a person computes or reads off a result', () => {
  it('adds a fee to an amount given to the cent, and reads a bare rate under a rate key', async () => {
    const quote = { pair: 'EURJPY', rate: 162.4, amount_from: { value: 11391.63, currency: 'EUR' }, fee: { value: 15, currency: 'EUR' } }
    expect(await verdicts(quote, 'At 162.40 yen per euro that comes to €11,391.63.')).toEqual(['supported'])
    expect(await verdicts(quote, 'With the fee it is €11,406.63 in total.')).toEqual(['supported'])
    expect(await verdicts(quote, 'With the fee it is €11,416.63 in total.')).not.toEqual(['supported'])
  })

  it('computes a position\'s gain, and a fall in percent only where the claim says it fell', async () => {
    const pos = { positions: [{ ticker: 'VWRL', units: 120, avg_cost_gbp: 98.4, last_price_gbp: 112.15 }, { ticker: 'ULVR', units: 85, avg_cost_gbp: 44.1, last_price_gbp: 41.62 }] }
    expect(await verdicts(pos, 'VWRL is £1,650 up in total.')).toEqual(['supported'])
    expect(await verdicts(pos, 'ULVR is down about 5.6% from your average cost of £44.10.')).toEqual(['supported'])
    expect(await verdicts(pos, 'ULVR is up about 5.6% from your average cost of £44.10.')).not.toEqual(['supported'])
  })

  it('reads "time and a half" against a multiplier and an hourly rate as money per hour', async () => {
    const ts = { regular_hours: 40, overtime_hours: 6, hourly_rate_usd: 24, ot_multiplier: 1.5 }
    // (two claims: the hours, and what they are paid at)
    expect(await verdicts(ts, 'You worked 6 hours of overtime, paid at time and a half.')).toEqual(['supported', 'supported'])
    expect(await verdicts(ts, 'You worked 6 hours of overtime, paid at double time.')).toEqual(['supported', 'unsupported'])
    expect(await verdicts(ts, 'That is $960 in regular pay for the week.')).toEqual(['supported'])
  })

  it('multiplies a measure by a count the result gives', async () => {
    const load = { sku: 'LB-220', pallets: 12, pallet_weight_kg: 820 }
    expect(await verdicts(load, 'The 12 pallets at 820 kg each weigh 9,840 kg.')).toEqual(['supported'])
    expect(await verdicts(load, 'The 12 pallets at 820 kg each weigh 9,940 kg.')).not.toEqual(['supported'])
  })
})

describe('conditions, spellings and limits', () => {
  it('reads a denial inside "unless" as a condition, not a denial of the main clause', async () => {
    const contract = { section: '9.2', text: 'This Agreement renews automatically for successive twelve (12) month terms unless either party gives written notice of non-renewal at least ninety (90) days before the end of the term.' }
    expect(await verdictsOn(tool('get_contract', { id: 'msa' }, contract), 'It renews automatically for another 12 months unless someone gives notice.', 'Does it renew?')).not.toContain('contradicted')
  })

  it('does not take a name spelled otherwise for the one the claim names', async () => {
    const marks = { results: [{ mark: 'LUMORA', owner: 'Lumora Lighting LLC', status: 'live', registered: '2024-09-17' }, { mark: 'LUMORRA', owner: 'Verdane Cosmetics Inc.', status: 'live', registered: null }] }
    expect(await verdicts(marks, 'The LUMORA mark that is live was registered on September 17, 2024.')).toEqual(['supported'])
  })

  it('meets a one-sided reference limit and a decimal range', async () => {
    const labs = { results: [{ test: 'HbA1c', value: 39, unit: 'mmol/mol', ref_range: '<42' }, { test: 'Glucose', value: 6.4, unit: 'mmol/L', ref_range: '3.9-5.5' }] }
    expect(await verdicts(labs, 'Your HbA1c of 39 mmol/mol is within the normal range.')).toEqual(['supported'])
    expect(await verdicts(labs, 'Your glucose of 6.4 is within the normal range.')).not.toEqual(['supported'])
    // Without a figure of its own the claim is about the value the result gives for what it names.
    expect(await verdicts(labs, 'Your glucose was above its range.')).toEqual(['supported'])
    expect(await verdicts(labs, 'Your glucose was below its range.')).toEqual(['contradicted'])
  })
})

describe('what a claim refers back to', () => {
  it('reads a place named by "there" as the previous claim\'s entity', async () => {
    const clinics = { clinics: [{ clinic: 'Lincoln Park Pharmacy', slots: ['2026-10-07T16:30:00-05:00', '2026-10-08T09:15:00-05:00'] }, { clinic: 'Clark St Health Center', slots: ['2026-10-06T11:00:00-05:00'] }] }
    expect(await verdicts(clinics, 'Lincoln Park Pharmacy has a slot on October 7 at 4:30 pm. The next slot there is Thursday at 9:15 am.')).toEqual(['supported', 'supported'])
  })

  it('takes "I tried to …, but" as a report of the failure it reports', async () => {
    const id = nextTraceId()
    const v = viewOf([
      { id: '1'.repeat(16), attrs: { ...tool('book_slot', { slot: '16:30' }, ''), 'error.type': 'SlotTaken', 'exception.message': 'the 16:30 slot was booked by another patient' } },
      { id: '2'.repeat(16), attrs: chat([['user', 'Book it.']], 'I tried to book the 4:30 pm slot, but someone else took it first, so you have no appointment yet.') },
    ], id)
    v.spans[0]!.status_code = 'ERROR'
    const verdicts = (await contentReliability(v)).claims.map((c) => c.verdict)
    expect(verdicts[0]).toBe('supported')
    expect(verdicts).not.toContain('contradicted')
  })
})

describe('figures of a list and of relative keys', () => {
  it('adds up the items of a list for a claim about all of them, and not for one about an item', async () => {
    const survey = { districts: [{ district: 'North', invited: 1800, completed: 702 }, { district: 'Central', invited: 2200, completed: 935 }, { district: 'South', invited: 1500, completed: 612 }] }
    expect(await verdicts(survey, 'Overall, 2,249 of 5,500 invited people responded, 40.9%.')).toEqual(['supported'])
    expect(await verdicts(survey, '2,249 of 5,500 invited people responded.')).not.toEqual(['supported'])
    expect(await verdicts(survey, 'The total number invited was 5,500.')).toEqual(['supported'])
  })

  it('reads a value relative to a reference as a percent of it or a change from it, and a parent key\'s unit', async () => {
    const planet = { name: 'TOI-700 d', radius_earth: 1.14, insolation_earth: 0.86, dimensions_cm: { width: 214, depth: 92 } }
    expect(await verdicts(planet, "It's about 14% larger than Earth and gets 86% of the sunlight Earth does.")).toEqual(['supported'])
    expect(await verdicts(planet, 'It is 214 cm wide and 92 cm deep.')).toEqual(['supported'])
    expect(await verdicts(planet, "It's about 24% larger than Earth.")).not.toEqual(['supported'])
  })
})

describe('words a key writes otherwise', () => {
  it('joins what a sentence writes as two words, and reads its denial', async () => {
    expect(await verdicts({ clinic: 'Elm Street Urgent Care', xray_onsite: true }, 'They have X-ray on site.')).toEqual(['supported'])
    expect(await verdicts({ clinic: 'Elm Street Urgent Care', xray_onsite: true }, "They don't have X-ray on site.")).toEqual(['contradicted'])
  })

  it('reads opening hours keyed by short day names, and "from 9 am to 5 pm" as a range', async () => {
    const clinic = { clinic: 'Elm Street Urgent Care', hours: { mon_fri: '08:00-20:00', sat: '09:00-17:00', sun: null } }
    expect(await verdicts(clinic, 'Elm Street Urgent Care is open on Saturday from 9 am to 5 pm.')).toEqual(['supported'])
    expect(await verdicts(clinic, 'Elm Street Urgent Care is open on Sunday from 9 am to 5 pm.')).not.toEqual(['supported'])
  })

  it('does not back a denial with the words of a flag that holds', async () => {
    const track = { track: 'Midnight Ferry', rights_holder: 'Northlight Music Publishing', youtube_content_id: true }
    expect(await verdicts(track, "Content ID isn't enabled for this track.")).not.toEqual(['supported'])
    expect(await verdicts(track, 'Content ID is enabled for this track.')).toEqual(['supported'])
  })

  it('reads "topped up", "paying off early" and "come off" as the keys say them', async () => {
    expect(await verdicts({ card_last4: '4471', reloadable: false }, "This card can't be topped up.")).toEqual(['supported'])
    expect(await verdicts({ loan_id: 'AL-1', prepayment_penalty: false }, "There's no penalty for paying the loan off early.")).toEqual(['supported'])
    expect(await verdicts({ sku: 'SOFA-3', legs_removable: true }, 'The legs come off.')).toEqual(['supported'])
  })
})

describe('absence and advice', () => {
  it('reads an empty list as the absence of what it lists', async () => {
    const run = { migration: '0147_add_order_index', statements: 2, rows_scanned: 18400000, warnings: [] }
    expect(await verdicts(run, 'It ran 2 statements, scanning 18.4 million rows with no warnings.')).toEqual(['supported'])
    expect(await verdicts(run, 'It raised two warnings.')).not.toEqual(['supported'])
  })
})

describe('the user\'s figure as an operand', () => {
  it('stands beside figures the evidence backs when the claim computes from it, and not alone', async () => {
    const rates = tool('get_rates', {}, { products: [{ name: '12-month CD', apy_pct: 4.35 }, { name: 'High-Yield Savings', apy_pct: 4.1 }] })
    const answer = 'On $10,000, the 12-month CD at 4.35% APY would earn about $435 in a year. You have $10,000 to invest.'
    expect(await verdictsOn(rates, answer, 'I have $10,000 to put away for a year. CD or savings?')).toEqual(['supported', 'unsupported'])
  })
})

describe('documents of several entities', () => {
  it('reads the sentences after a named one as about it, up to the next name', async () => {
    const doc = 'Dental plans 2027. Dental PPO: employee only $18.40. Annual maximum $2,000; orthodontia covered for children. Dental HMO: employee only $7.90. No annual maximum; network dentists only.'
    const answer = 'The PPO covers orthodontia for children. The HMO covers orthodontia for children.'
    expect(await verdictsOnDoc(doc, answer, 'Which dental plan covers braces?')).toEqual(['supported', 'unsupported'])
  })
})

describe('dates a record gives in prose', () => {
  it('reads a date in a short value as its own event\'s, a range of days of a month, and a tax year as a year', async () => {
    const refund = { tax_year: 2025, status: 'adjusted', expected_deposit: '2026-10-23', letter: 'CP12 mailed 2026-10-09' }
    expect(await verdicts(refund, 'A CP12 notice was mailed to you on October 9.')).toEqual(['supported'])
    expect(await verdicts(refund, 'The refund is for tax year 2025.')).toEqual(['supported'])
    const pay = { next_pay_date: '2026-10-30', covers: '2026-10-12 to 2026-10-25' }
    expect(await verdicts(pay, 'It covers October 12 through 25.')).toEqual(['supported'])
    expect(await verdicts(pay, 'It covers October 12 through 26.')).not.toEqual(['supported'])
  })
})

describe('negated claims against negated sentences', () => {
  it('are no contradiction when both deny the same thing with their denials on other words', async () => {
    expect(await verdictsOnDoc('Pets are not allowed in the cabin. Service animals are permitted on all flights.', "You can't bring your pet into the cabin.")).not.toContain('contradicted')
    expect(await verdictsOnDoc('Refunds are not available for sale items. Regular items can be returned within 30 days.', "Sale items can't be refunded.")).not.toContain('contradicted')
    expect(await verdictsOnDoc('Employees are not eligible for overtime on holidays.', "You won't get overtime pay for holidays.")).not.toContain('contradicted')
  })

  it('read a denial past an adverb, an elliptical "is not", and "costs nothing"', async () => {
    expect(await verdictsOnDoc('Study result: the intervention did not reduce blood pressure significantly (p = 0.21).', "The intervention didn't significantly lower blood pressure.")).not.toContain('contradicted')
    expect(await verdictsOnDoc('The warranty does not cover accidental damage. Manufacturing defects are covered for two years.', 'Defects are covered for two years, but accidental damage is not.')).not.toContain('contradicted')
    expect(await verdictsOnDoc('Parking is free after 6 pm. Before 6 pm it costs $3 an hour.', 'Parking costs nothing after 6 pm.')).toEqual(['supported'])
  })

  it('still contradict a claim that asserts what the sentence denies', async () => {
    expect(await verdictsOnDoc('The north loop trail is closed until further notice.', 'The north loop has reopened.')).toEqual(['contradicted'])
  })
})

describe('flags in contrasting clauses and everyday words', () => {
  it('reads each clause of a contrast for its own flag', async () => {
    expect(await verdicts({ store: 'Downtown', in_stock: false, online: { in_stock: true } }, "It's out of stock downtown but available online.")).toEqual(['supported'])
    expect(await verdicts({ route: 'R1', tolls: false, ferry: true }, 'The route avoids tolls but includes a ferry.')).toEqual(['supported'])
  })

  it('reads "costs extra" as not included and "is needed" as required', async () => {
    expect(await verdicts({ flight: 'LH716', checked_bag_included: false }, 'Checked bags cost extra on this fare.')).toEqual(['supported'])
    expect(await verdicts({ flight: 'LH716', checked_bag_included: true }, 'Checked bags cost extra on this fare.')).toEqual(['contradicted'])
    expect(await verdicts({ item: 'Sofa', assembly_required: false }, 'No assembly is needed.')).toEqual(['supported'])
  })
})

describe('a consequence drawn from its premise', () => {
  it('stands with the supported clause it follows, when it adds no figure', async () => {
    const lens = { model: 'Sorato 35mm f/1.8 DG', mounts: ['Sony E', 'Nikon Z', 'L-Mount'], weight_g: 265 }
    expect(await verdicts(lens, "It's only made for Sony E, Nikon Z and L-Mount, so it won't mount on your X-T5.")).toEqual(['supported', 'supported'])
    // A figure of its own needs its own backing.
    expect(await verdicts(lens, "It's only made for Sony E, Nikon Z and L-Mount, so you'd need a $149 adapter.")).toEqual(['supported', 'unsupported'])
    // After an unbacked premise, the consequence stands alone.
    expect(await verdicts(lens, 'It is weather sealed, so it will survive the rain.')).toEqual(['unsupported', 'unsupported'])
  })
})

describe('claims under a label', () => {
  it('are about the entity the label names', async () => {
    const offers = tool('get_offers', {}, { offers: [{ card: 'Harbor Rewards Visa', intro_apr_percent: 0, intro_months: 18, go_to_apr_percent: 21.74 }, { card: 'Harbor Flex Mastercard', intro_apr_percent: 0, intro_months: 21, go_to_apr_percent: 23.24 }] })
    const answer = 'Here are the two offers:\n\n- Harbor Rewards Visa: 0% for 18 months. After the promo the rate goes to 21.74%.\n- Harbor Flex Mastercard: 0% for 21 months. Its rate afterwards is 23.24%.'
    expect(await verdictsOn(offers, answer)).toEqual(['supported', 'supported', 'supported', 'supported'])
    const swapped = answer.replace('goes to 21.74%', 'goes to 23.24%')
    expect((await verdictsOn(offers, swapped))[1]).not.toBe('supported')
  })
})

describe('a table in the answer', () => {
  it('is judged row by row against the record each row names, its header no claim', async () => {
    const offers = tool('get_offers', {}, { offers: [{ card: 'Harbor Rewards Visa', intro_apr_percent: 0, go_to_apr_percent: 21.74 }, { card: 'Harbor Flex Mastercard', intro_apr_percent: 0, go_to_apr_percent: 23.24 }] })
    const answer = '| Card | Intro APR | APR after |\n|---|---|---|\n| Harbor Rewards Visa | 0% | 21.74% |\n| Harbor Flex Mastercard | 0% | 25.99% |'
    expect(await verdictsOn(offers, answer)).toEqual(['supported', 'contradicted'])
  })
})

describe('round 9: measures, windows, weeks and a subject carried on', () => {
  it('reads millimetres per second, in a claim and in a key', async () => {
    expect(await verdicts({ machine: 'VMC-07', spindle_vibration_mm_s: 4.6 }, 'Vibration: 4.6 mm/s')).toEqual(['supported'])
    expect(await verdicts({ machine: 'VMC-07', spindle_vibration_mm_s: 4.6 }, 'Vibration: 4.6 mm')).not.toEqual(['supported'])
  })
  it('reads a key that counts over a window as a count, not days', async () => {
    expect(await verdicts({ episode: 'The riverfront deal', downloads_first_7_days: 12840 }, 'Downloads in the first week were 12,840.')).toEqual(['supported'])
  })
  it('reads an ISO week as the week a claim names', async () => {
    const roster = { site: 'canning', week_overtime: { week: '2028-W21', booked_h: 34.5 } }
    expect(await verdicts(roster, 'Overtime: 34.5 hours are booked for week 21.')).toEqual(['supported'])
    expect(await verdicts(roster, 'Overtime: 34.5 hours are booked for week 22.')).not.toEqual(['supported'])
  })
  it('carries the subject on through a clause that continues and a claim that opens with its verb', async () => {
    const windows = { windows: [{ db: 'db-sg-prod', start: '2028-05-13T18:00:00+08:00', duration_min: 150 }, { db: 'db-fra-prod', start: '2028-05-14T02:00:00+02:00', duration_min: 240 }] }
    const answer = '**db-sg-prod — CHG-48213**\n- Starts Saturday 13 May at 18:00 Singapore time, which is **6:00 am in New York** the same day.\n- Runs 2½ hours.\n- No freeze exemption needed.'
    expect((await verdicts(windows, answer)).at(-2)).toBe('supported')
  })
})

describe('round 9: a list and the line that introduces it', () => {
  const berths = { berths: [{ berth: 'C-14', max_loa_ft: 40, available_depth_mlw_ft: 8 }, { berth: 'D-03', max_loa_ft: 36, available_depth_mlw_ft: 6 }] }
  it("takes the items of a list as about the entity its introducing line names", async () => {
    const answer = 'Yes, **C-14** fits *Wren* well:\n\n- Max LOA 40 ft (you are about 38.1 ft)\n- 8 ft of water at MLW for your draft'
    expect(await verdicts(berths, answer)).toEqual(['supported', 'supported'])
    expect(await verdicts(berths, answer.replace('8 ft of water', '6 ft of water'))).not.toEqual(['supported', 'supported'])
  })
  it('backs a count its own words name under a key', async () => {
    const rooms = { rooms: [{ name: 'Main Hall', capacity_theatre: 380, capacity_banquet: 260 }, { name: 'Garden Room', capacity_theatre: 150, capacity_banquet: 90 }] }
    expect(await verdicts(rooms, 'Good news, the **Main Hall** works for you:\n\n- **Seating:** it takes 380 theatre style.')).toEqual(['supported'])
    expect(await verdicts(rooms, 'Good news, the **Main Hall** works for you:\n\n- **Seating:** it takes 150 theatre style.')).not.toEqual(['supported'])
  })
})

describe('round 9: gallons and whole inches', () => {
  it('reads gallons under a key and whole inches as the second side of a size', async () => {
    expect(await verdicts({ model: 'C182T', usable_fuel_gal: 87, fuel_weight_lb: 522 }, 'Full tanks (87 gal usable) weigh 522 lb.')).toEqual(['supported'])
    expect(await verdicts({ model: 'AQS-R7', dimensions_cm: { length: 213, width: 56 } }, "It's 213 cm long and 56 cm wide (about 7 ft by 22 in).")).toEqual(['supported'])
    expect(await verdicts({ model: 'AQS-R7', dimensions_cm: { length: 213, width: 56 } }, "It's 213 cm long and 56 cm wide (about 7 ft by 30 in).")).not.toEqual(['supported'])
  })
})
