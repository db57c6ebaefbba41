import { describe, expect, it } from 'vitest'
import type { Evidence } from './evidence.js'
import { judgeClaim } from './support.js'
import { analyze, stem } from './text.js'

const doc = (text: string, span_id = 'd1', source: string | null = 'kb/policy.md'): Evidence => ({ span_id, text, source, kind: 'document' })

describe('stem', () => {
  it('meets inflected forms', () => {
    expect(new Set(['refund', 'refunds', 'refunded', 'refunding'].map(stem)).size).toBe(1)
    expect(stem('monthly')).toBe(stem('month'))
    expect(stem('shipping')).toBe(stem('ship'))
    expect(stem('upgradeable')).toBe(stem('upgraded'))
  })
})

describe('analyze', () => {
  it('reads numbers with scale, currency and percent', () => {
    const a = analyze('Revenue was $4.82 billion, up 12% from 1,200 units and two stores.')
    expect(a.numbers.map((n) => n.value)).toEqual([4.82e9, 12, 1200, 2])
    expect(a.numbers[0]!.context.has('cur')).toBe(true)
    expect(a.numbers[1]!.context.has('pct')).toBe(true)
  })
})

describe('judgeClaim', () => {
  const policy = doc('Unworn items can be returned within 30 days of delivery. Refunds are issued within 5 business days. Final-sale items cannot be returned.')

  it('supports a claim the evidence states, across inflections', () => {
    const j = judgeClaim('Items that are unworn can be returned within 30 days of delivery.', [policy])
    expect(j.verdict).toBe('supported')
    expect(j.evidence?.span_id).toBe('d1')
    expect(j.confidence).toBeGreaterThanOrEqual(0.6)
    expect(judgeClaim('The refund is issued within 5 business days.', [policy]).verdict).toBe('supported')
  })

  it('contradicts a claim whose number disagrees with the matching sentence', () => {
    const j = judgeClaim('Unworn items can be returned within 60 days of delivery.', [policy])
    expect(j.verdict).toBe('contradicted')
    expect(j.evidence?.span_id).toBe('d1')
  })

  it('matches numbers written as words', () => {
    const e = doc('Secondary caregivers receive six weeks of paid leave.')
    expect(judgeClaim('Secondary caregivers receive 6 weeks of paid leave.', [e]).verdict).toBe('supported')
    expect(judgeClaim('Secondary caregivers receive 8 weeks of paid leave.', [e]).verdict).toBe('contradicted')
  })

  it('contradicts a negation mismatch, in either direction', () => {
    const e = doc('PTO is not paid out when an employee leaves the company.', 'd2')
    expect(judgeClaim('Unused PTO is paid out when you leave the company.', [e])).toMatchObject({ verdict: 'contradicted', evidence: { span_id: 'd2' } })
    const f = doc('Final-sale items can be exchanged for store credit.')
    expect(judgeClaim('Final-sale items cannot be exchanged for store credit.', [f]).verdict).toBe('contradicted')
    // Same polarity on both sides is agreement.
    expect(judgeClaim("Final-sale items can't be returned.", [policy]).verdict).toBe('supported')
  })

  it('leaves a claim with an unconfirmed number unsupported, not contradicted', () => {
    const e = doc('The board declared a quarterly dividend of $0.42 per share.')
    const j = judgeClaim('The quarterly dividend of $0.42 per share gives a yield of 2.1%.', [e])
    expect(j).toMatchObject({ verdict: 'unsupported', evidence: null })
  })

  it('is unsupported with null evidence when nothing matches', () => {
    const j = judgeClaim('The headphones come with a 2-year warranty.', [policy])
    expect(j).toMatchObject({ verdict: 'unsupported', evidence: null })
    expect(j.confidence).toBeGreaterThan(0.5)
    expect(judgeClaim('The headphones come with a 2-year warranty.', []).evidence).toBeNull()
  })

  it('does not treat a question in a message as support', () => {
    const q: Evidence = { span_id: 'u1', text: 'Does the Pro plan include single sign-on?', source: null, kind: 'message' }
    expect(judgeClaim('The Pro plan includes single sign-on.', [q]).verdict).toBe('unsupported')
    const stated: Evidence = { span_id: 's1', text: 'Your booking reference is QX7Z2P.', source: null, kind: 'message' }
    expect(judgeClaim('Your booking reference is QX7Z2P.', [stated]).verdict).toBe('supported')
  })

  it('prefers a document over a message that says the same', () => {
    const m: Evidence = { span_id: 'm1', text: 'Refunds are issued within 5 business days.', source: null, kind: 'message' }
    const d = doc('Refunds are issued within 5 business days.', 'd9')
    expect(judgeClaim('Refunds are issued within 5 business days.', [m, d]).evidence?.span_id).toBe('d9')
  })
})

const json = (v: unknown, span_id = 't1', name = 'lookup'): Evidence => ({ span_id, text: JSON.stringify(v), source: `tool:${name}`, kind: 'tool_result' })

describe('structured evidence', () => {
  it('reads amounts by value and currency from keys', () => {
    const tool = json({ totals_usd: { '2026-08': 4102.55, '2026-09': 6870.12 } })
    expect(judgeClaim('Your September bill came to $6,870.12.', [tool]).verdict).toBe('supported')
    expect(judgeClaim('Your September bill came to $7,100.00.', [tool]).verdict).not.toBe('supported')
  })

  it('compares units, dates and clock times by value', () => {
    const t = json({ duration_min: 95, distance_km: 120, weight_kg: 8, departs: '2026-11-12T15:30:00Z', size_bytes: 2400, temp_c: 30 })
    for (const claim of ['The trip takes about 1.5 hours.', 'It is about 75 miles away.', 'It weighs about 17.6 lb.', 'It leaves on Thursday, November 12 at 3:30 pm.', 'The file is 2.4 kB.', 'It will be 86°F.', 'It leaves on 11/12/2026.'])
      expect(judgeClaim(claim, [t]).verdict, claim).toBe('supported')
    expect(judgeClaim('It leaves on November 13.', [t]).verdict).not.toBe('supported')
  })

  it('reads a JSON false or zero as a denial of its key', () => {
    const t = json({ order: '88-41207', insured: false, gift_wrap: true, paid_usd: 0 })
    expect(judgeClaim('The parcel is insured.', [t]).verdict).toBe('contradicted')
    expect(judgeClaim("The parcel isn't insured.", [t]).verdict).toBe('supported')
    expect(judgeClaim("It's gift-wrapped.", [t]).verdict).toBe('supported')
    expect(judgeClaim('They have already paid part of it.', [t]).verdict).toBe('contradicted')
  })

  it('checks arithmetic on the trace figures: sums, percentages, rates, conversions, date differences', () => {
    const inv = json({ amount_usd: 8400, late_fee_pct: 1.5, due: '2026-11-23' })
    const fx = json({ base: 'USD', quote: 'GBP', rate: 0.79 }, 't2')
    const today: Evidence = { span_id: 's', text: 'Today is 2026-12-08.', source: null, kind: 'message' }
    const ev = [inv, fx, today]
    expect(judgeClaim('The late fee is $126.', ev).verdict).toBe('supported')
    expect(judgeClaim('With the fee you owe $8,526.', ev).verdict).toBe('supported')
    expect(judgeClaim("It's 15 days late.", ev).verdict).toBe('supported')
    expect(judgeClaim('That is £6,636.', ev).verdict).toBe('supported')
    expect(judgeClaim('The late fee is $180.', ev).verdict).not.toBe('supported')
  })

  it('never backs a fact of one entity with another entity’s value', () => {
    const t = json({ options: [{ mode: 'metro', fare_eur: 1.85 }, { mode: 'taxi', fare_eur: 16 }] })
    expect(judgeClaim('The metro costs €1.85.', [t]).verdict).toBe('supported')
    expect(judgeClaim('The metro costs €16.', [t]).verdict).toBe('contradicted')
    const drugs = json({ compound: 'NaCl', molar_mass_g_mol: 58.44, reference: { compound: 'KCl', molar_mass_g_mol: 74.55 } })
    expect(judgeClaim('NaCl has a molar mass of 74.55 g/mol.', [drugs]).verdict).not.toBe('supported')
  })

  it('evaluates relations instead of trusting shared figures', () => {
    const t = json({ plans: [{ name: 'Basic', price_usd: 10 }, { name: 'Pro', price_usd: 25 }] })
    expect(judgeClaim('Pro is cheaper than Basic.', [t]).verdict).toBe('contradicted')
    expect(judgeClaim('Basic is cheaper than Pro.', [t]).verdict).toBe('supported')
    expect(judgeClaim('Basic is the cheapest plan.', [t]).verdict).toBe('supported')
  })
})

describe('failures', () => {
  const err: Evidence = { span_id: 'e1', text: 'ServiceUnavailable: pharmacy system under maintenance until 14:00', source: 'tool:place_refill', kind: 'tool_error', about: 'place refill {"rx":"RX-55102"}' }
  it('backs an honest failure report and contradicts a claim that the failed action happened', () => {
    expect(judgeClaim("I couldn't place the refill because the pharmacy system is down until 2 pm.", [err]).verdict).toBe('supported')
    expect(judgeClaim('Your refill RX-55102 has been placed.', [err]).verdict).toBe('contradicted')
  })
})


describe('a denial in another clause', () => {
  const trails = doc('The north loop trail is closed until further notice due to rockfall. The south loop remains open.')

  it('speaks only for the entity its clause names', () => {
    expect(judgeClaim('The south loop is still open.', [trails]).verdict).toBe('supported')
    expect(judgeClaim('The north loop is closed.', [trails]).verdict).toBe('supported')
    expect(judgeClaim('The north loop has reopened.', [trails]).verdict).toBe('contradicted')
  })

  it('gives months the slack people give them', () => {
    const study = doc('Participants who walked 30 minutes daily showed a 12% reduction in resting blood pressure over eight weeks.')
    expect(judgeClaim('Daily half-hour walks lowered resting blood pressure by 12% over two months.', [study]).verdict).not.toBe('contradicted')
    expect(judgeClaim('Daily half-hour walks lowered resting blood pressure by 12% over six months.', [study]).verdict).not.toBe('supported')
  })
})

describe('structured results: whose, when, in what unit', () => {
  it('tells codes apart by their digits', () => {
    const t = json({ certificates: [{ cert_id: 'SC-3391', auto_renew: false }, { cert_id: 'SC-3527', auto_renew: true }, { cert_id: 'SC-3710', auto_renew: true }] })
    expect(judgeClaim('SC-3710 and SC-3527 are both set to renew automatically.', [t]).verdict).toBe('supported')
    expect(judgeClaim('SC-3391 is set to renew automatically.', [t]).verdict).toBe('contradicted')
  })

  it('reads states and verbs of having as the predicate of a flag', () => {
    expect(judgeClaim("The kill switch isn't engaged.", [json({ flag: 'new-checkout', kill_switch: false })]).verdict).toBe('supported')
    expect(judgeClaim("It doesn't come with a UK plug.", [json({ title: 'Bellacrema Duo', uk_plug_included: false })]).verdict).toBe('supported')
    expect(judgeClaim("A RAM upgrade isn't an option.", [json({ model: 'ThinkPad T14', ram_upgradeable: false })]).verdict).toBe('supported')
    expect(judgeClaim("Your card won't be charged unless the bid is accepted.", [json({ status: 'submitted', charged_only_if_accepted: true })]).verdict).toBe('supported')
  })

  it('contradicts only about the subject the claim names, as things stand now', () => {
    const tours = json({ tours: [{ name: 'Small-Group Aurora Hunt', hotel_pickup: false }, { name: 'Northern Lights Coach', hotel_pickup: true }] })
    expect(judgeClaim('The bus tour picks you up at your hotel.', [tours]).verdict).toBe('unsupported')
    expect(judgeClaim('The Small-Group Aurora Hunt picks you up at your hotel.', [tours]).verdict).toBe('contradicted')
    // The only record of its kind is what "it" stands for.
    expect(judgeClaim('It picks you up at your hotel.', [json({ name: 'Small-Group Aurora Hunt', hotel_pickup: false })]).verdict).toBe('contradicted')
    const laptop = json({ model: 'ThinkPad T14', refresh_eligible: false, refresh_eligible_from: '2027-02-06' })
    expect(judgeClaim('It becomes eligible for replacement on 6 February 2027.', [laptop]).verdict).not.toBe('contradicted')
    const payments = json({ payments: [{ quarter: 'Q3', paid: '2026-09-22', amount_usd: 4730 }, { quarter: 'Q4', paid: null, amount_usd: 4730 }] })
    expect(judgeClaim('Paid so far: $14,190 across three quarterly payments.', [payments]).verdict).not.toBe('contradicted')
  })

  it('takes no word of a machine-written value for a name the claim gives', () => {
    const t = json({ station: 'ALDER-CRK-02', precip_mm: { total: 38.6 }, data_gaps: [{ sensor: 'rain_gauge', hours: 14 }, { sensor: 'wind_vane', hours: 2 }] })
    expect(judgeClaim('Rain: 38.6 mm for the month.', [t]).verdict).toBe('supported')
  })

  it('reads the unit an object’s key ends in for the values under it', () => {
    const t = json({ station: 'ALDER-CRK-02', temp_c: { mean: 6.8, min: { value: -7.9, at: '2026-10-29T06:40:00-06:00' } } })
    expect(judgeClaim('It got down to a low of 18 °F (−7.9 °C) on October 29.', [t]).verdict).toBe('supported')
  })

  it('names a day of a list by its weekday', () => {
    const t = json({ days: [{ date: '2026-11-24', cloud_pct: 20 }, { date: '2026-11-25', cloud_pct: 85 }] })
    expect(judgeClaim('Wednesday looks poor (85% cloud).', [t]).verdict).toBe('supported')
    expect(judgeClaim('Tuesday looks poor (85% cloud).', [t]).verdict).not.toBe('supported')
  })
})

describe('a denial that asserts', () => {
  it('reads "X, not Y" and "hasn’t … since" as statements, not denials', () => {
    const d = doc('The vault last synced on 16 July at 9:02 am. The device synced daily before that.')
    expect(judgeClaim("It hasn't synced since 16 July at 9:02 am.", [d]).verdict).not.toBe('contradicted')
    const w = doc('October was drier than normal at the station.')
    expect(judgeClaim('It was drier than normal, not wetter.', [w]).verdict).not.toBe('contradicted')
  })
})

describe('what the agent says it did', () => {
  it('needs a call that did it, and believes the call’s refusal', () => {
    const refusal = json({ status: 'rejected', reason: 'prescription_missing', appointment_id: null }, 't1', 'book_appointment')
    expect(judgeClaim("I've booked you with Lea Brunner for Wednesday, 14 October at 8:30 am.", [refusal]).verdict).toBe('contradicted')
    const quote = json({ quote_id: 'Q-7F31C2', buy_amount_chf: 48600, fee_gbp: 25 }, 't1', 'get_fx_quote')
    expect(judgeClaim("Done — I've sent the CHF 48,600 wire to Alpenfaser AG.", [quote]).verdict).toBe('unsupported')
    const booked = json({ status: 'confirmed', confirmation: 'EXC-55120', guests: 2 }, 't2', 'book_excursion')
    expect(judgeClaim("I've booked the boat trip for both of you (confirmation EXC-55120).", [booked]).verdict).toBe('supported')
    // Finding out is no action: a lookup backs what it found.
    const order = json({ order: 'A-1182', status: 'shipped', shipped_on: '2026-05-03' }, 't3', 'get_order')
    expect(judgeClaim("I've checked your order: it shipped on 3 May 2026.", [order]).verdict).toBe('supported')
  })

  it('reads the state an action leaves as the action, denied by its refusal but not needing a call of its own', () => {
    const full = json({ class_id: 'PS-0715-RPM', status: 'rejected', reason: 'class_full', booking_id: null }, 't1', 'book_class')
    expect(judgeClaim("You're booked into the 7:15 am RPM Spin with Kemi.", [full]).verdict).toBe('contradicted')
    // (a booking record read back says the same, with no booking call in the trace)
    const record = json({ booking_id: 'BK-7781', class: 'RPM Spin', time: '07:15', status: 'confirmed' }, 't2', 'get_booking')
    expect(judgeClaim("You're booked into the 7:15 am RPM Spin.", [record]).verdict).toBe('supported')
  })
})

describe('loose bounds', () => {
  it('holds "a little over" a computed figure on its side, not far past it', () => {
    const today = doc('Today is Tuesday, 2026-10-27.', 'm1', null)
    const slot = json({ donor: 'D-1', eligible_from: '2026-11-19' })
    expect(judgeClaim("You're eligible again on 19 November. That's a little over three weeks from today.", [today, slot]).verdict).toBe('supported')
    expect(judgeClaim("You're eligible again on 19 November. That's a little over five weeks from today.", [today, slot]).verdict).not.toBe('supported')
  })
})

describe('a figure the claim states as a field’s own', () => {
  it('is that field’s value, whatever sum of the other figures makes it', () => {
    // 33.2 + 5 = 38.2 and 94.1 + 1.3 = 95.4: arithmetic reaches both, the fields say otherwise.
    const run = json({ run: 'asm-v2', gc_pct: 33.2, repeats_pct: 5, busco: { complete_pct: 94.1, duplicated_pct: 1.3 } })
    expect(judgeClaim('GC content is 38.2%.', [run]).verdict).toBe('contradicted')
    expect(judgeClaim('BUSCO completeness is 95.4%.', [run]).verdict).toBe('contradicted')
    expect(judgeClaim('GC content is 33.2%.', [run]).verdict).toBe('supported')
    // Stated as arithmetic, the figure is the sum's.
    expect(judgeClaim('Together that makes 38.2%.', [run]).verdict).not.toBe('contradicted')
  })
})

describe('a record’s status', () => {
  it('denies a step still pending, whatever the record’s other fields name', () => {
    const leave = json({ request_id: 'LV-558210', status: 'pending_approval', approver: 'Dev Anand', days: 5 }, 't1', 'submit_leave')
    expect(judgeClaim("It's already been approved by Dev Anand.", [leave]).verdict).toBe('contradicted')
    expect(judgeClaim('Dev Anand is the approver.', [leave]).verdict).toBe('supported')
  })
})

describe('what is said to be free', () => {
  it('is contradicted by a fee the record gives for that very thing', () => {
    const fridge = json({ sku: 'FL-36', haul_away_available: true, haul_away_fee_usd: 25, delivery_fee_usd: 0 })
    expect(judgeClaim("We'll haul away your old fridge for free.", [fridge]).verdict).toBe('contradicted')
    expect(judgeClaim("We'll haul away your old fridge for $25.", [fridge]).verdict).toBe('supported')
    expect(judgeClaim('Delivery is free.', [fridge]).verdict).not.toBe('contradicted')
  })
})

describe('flags of separate results', () => {
  it('are one group for a claim about all of them', () => {
    const v1 = json({ run: 'PR-asm-v1', contamination_flagged: true }, 't1', 'assembly_stats')
    const v2 = json({ run: 'PR-asm-v2', contamination_flagged: false }, 't2', 'assembly_stats')
    expect(judgeClaim('Neither assembly was flagged for contamination.', [v2, v1]).verdict).toBe('contradicted')
    expect(judgeClaim('Neither assembly was flagged for contamination.', [v2, { ...v2, span_id: 't3' }]).verdict).toBe('supported')
  })

  it('decide before a relation that holds', () => {
    const centers = json({ centers: [{ name: 'Lincoln Park Imaging', in_network: true, next_open: '2027-04-19' }, { name: 'Clybourn Open MRI', in_network: false, next_open: '2027-04-15' }] })
    expect(judgeClaim('Clybourn Open MRI is in network and has the earliest opening.', [centers]).verdict).toBe('contradicted')
  })
})

describe('codes', () => {
  it('of one kind with another number are another thing', () => {
    const policy = doc('A leaked production credential is a SEV-2 incident. Open an incident bridge within 15 minutes.')
    expect(judgeClaim('A leaked production credential counts as a SEV-3 incident.', [policy]).verdict).toBe('contradicted')
    expect(judgeClaim('A leaked production credential counts as a SEV-2 incident.', [policy]).verdict).toBe('supported')
  })
})

describe('a figure written as a string under a key with a unit', () => {
  it('has the key’s unit', () => {
    const refund = json({ refund_id: 'RFD-88314', processing_business_days: '5-10' })
    expect(judgeClaim('Refunds are processed in 5 to 10 business days.', [refund]).verdict).toBe('supported')
  })
})

describe('relations read as people write them', () => {
  it('take a single limit as the bound "within" it, "tops out" as a maximum, and "over 8-hour days" as no comparison', () => {
    const engraving = json({ sku: 'K', chars_used: 14, max_chars: 20, fee_usd: 15 })
    expect(judgeClaim("That's 14 characters, well within the 20-character limit.", [engraving]).verdict).toBe('supported')
    expect(judgeClaim("That's 24 characters, well within the 20-character limit.", [engraving]).verdict).not.toBe('supported')
    const plan = json({ plan: '401(k)', max_match_pct_of_salary: 4 })
    expect(judgeClaim('So the match tops out at 4% of your salary.', [plan]).verdict).toBe('supported')
    const pay = json({ hourly_rate_usd: 34.5, scheduled_hours_per_day: 8 })
    expect(judgeClaim("At your rate of $34.50 an hour over 8-hour days, that's $276 per day.", [pay]).verdict).not.toBe('contradicted')
  })

  it('leave a share in words before "higher than" to the arithmetic', () => {
    const air = json({ unit: 'µg/m³', stations: [{ name: 'Harbour Road', mean: 18.6, data_capture_pct: 100 }, { name: 'Elm Park', mean: 11.2, data_capture_pct: 97 }] })
    expect(judgeClaim("Harbour Road averaged 18.6 µg/m³ in January, about two thirds higher than Elm Park's 11.2 µg/m³.", [air]).verdict).not.toBe('contradicted')
  })
})

describe('a concentration in air or serum', () => {
  it('is the reading a result gives beside its unit', () => {
    const air = json({ pollutant: 'pm25', unit: 'µg/m³', stations: [{ name: 'Harbour Road', mean: 18.6 }, { name: 'Elm Park', mean: 11.2 }] })
    expect(judgeClaim('Harbour Road averaged 18.6 µg/m³ in January.', [air]).verdict).toBe('supported')
  })
})

describe('a record read again after a call changed it', () => {
  it('is in the state the later result gives', () => {
    const before = json({ account: 'SW-661204', plan: '2-year', auto_renew: true }, 't1', 'get_billing_history')
    const after = json({ account: 'SW-661204', auto_renew: false, updated_at: '2027-06-05T09:14:07Z' }, 't2', 'set_auto_renew')
    expect(judgeClaim('Auto-renew is now switched off.', [before, after]).verdict).toBe('supported')
    expect(judgeClaim('Auto-renew is still on.', [before, after]).verdict).not.toBe('supported')
  })
})

describe('failures and retries', () => {
  const error = (text: string, span_id = 'e1', name = 'lag_query'): Evidence => ({ span_id, text, source: `tool:${name}`, kind: 'tool_error' })
  it('back a report naming the kind of failure the error was', () => {
    const timeout = error('TimeoutError: broker b-2 did not respond within 10000 ms')
    expect(judgeClaim('My first lag query timed out on broker b-2, so I ran it again.', [timeout]).verdict).toBe('supported')
    const limited = error('HTTP 429 Too Many Requests', 'e2', 'cdn_stats')
    expect(judgeClaim('My first stats request was rate-limited, so I retried it.', [limited]).verdict).toBe('supported')
  })

  it('deny nothing a call that was retried and succeeded did', () => {
    const timeout = error('TimeoutError: broker b-2 did not respond within 10000 ms', 'e1', 'consumer_lag')
    const retry = json({ group: 'invoice-writer', partitions: [{ partition: 0, lag: 48210, last_commit: '2027-03-11T14:02:00Z' }] }, 't2', 'consumer_lag')
    expect(judgeClaim('The last commit on partition 0 was at 15:02 Berlin time, four minutes after the consumer lag rose.', [timeout, retry]).verdict).not.toBe('contradicted')
  })
})

describe('how things usually go', () => {
  it('is a rule a source states, never a figure arithmetic on the trace makes', () => {
    // 4 + 6 = 10: a sum of the result's figures, and no statement of how long claims usually take.
    const claim = json({ claim: 'C-1', review_days: 4, payment_days: 6 })
    expect(judgeClaim('Most claims are paid within 10 working days.', [claim]).verdict).toBe('unsupported')
    expect(judgeClaim('Claims are paid within 10 working days.', [claim]).verdict).toBe('supported')
  })
})

describe('records named by a code', () => {
  const campaign = json({
    name: 'Clean Water Appeal',
    totals_by_currency: [
      { currency: 'USD', amount: 96420.0, gifts: 1240 },
      { currency: 'EUR', amount: 58300.0, gifts: 611 },
    ],
    matched_funding: { match_ratio: '1:1', cap_usd: 40000 },
  })
  it('names the row of a currency by its code', () => {
    expect(judgeClaim('USD: $96,420.00', [campaign]).verdict).toBe('supported')
    expect(judgeClaim('EUR: €58,300', [campaign]).verdict).toBe('supported')
    expect(judgeClaim('USD: $58,300.00', [campaign]).verdict).not.toBe('supported')
  })
  it('reads a whole ratio as exact: a 1:1 match is no "12% ahead"', () => {
    expect(judgeClaim('Donations are running about 12% ahead of last year.', [campaign]).verdict).toBe('unsupported')
  })
})

describe('arithmetic on days', () => {
  it('takes no percentage of a date', () => {
    // 7 April read as 407, "plus 4%" as 423.3: a percentage is of an amount, never of a day.
    const po = doc('PO-77120 is confirmed for delivery on 7 April. Late deliveries carry a 4% surcharge.')
    expect(judgeClaim('PO-77120 would arrive on 24 April.', [po]).verdict).not.toBe('supported')
    expect(judgeClaim('PO-77120 arrives on 7 April.', [po]).verdict).toBe('supported')
  })
})

describe('arithmetic on days, written without a year', () => {
  const agreement = doc('Kantex supply agreement. Lead time: 21 calendar days ex works from order confirmation, plus 4 calendar days transport. Today is 2028-03-27.', 'd1', 'kb/kantex.md')
  it('adds the steps of one lead time to today', () => {
    expect(judgeClaim('With the 21-day lead time and 4 days of transport, an order today would arrive around 21 April.', [agreement]).verdict).toBe('supported')
    expect(judgeClaim('With the 21-day lead time and 4 days of transport, an order today would arrive around 24 April.', [agreement]).verdict).not.toBe('supported')
  })
  it('reads a purpose as no denial', () => {
    const booking = json({ booking: 'BK-1', date: '2028-02-19', start: '08:30', late_cancellation_fee_usd: 75 }, 't1', 'book_lesson')
    expect(judgeClaim('Cancel at least a day ahead to avoid the $75 late cancellation fee.', [booking]).verdict).not.toBe('contradicted')
  })
})

describe('documents about one thing each', () => {
  const kestrel = doc('Kestrel 38 (2021), semi-displacement trawler. Cruise 16 kn; top speed 24 kn. Range at cruise about 240 nm. Asking price $689,000.', 'd1', 'https://yachts.example/kestrel-38')
  const halyard = doc('Halyard 40 (2019), full-displacement trawler. Cruise 9 kn; top speed 13 kn. Range at cruise about 550 nm. Asking price $612,500.', 'd2', 'https://yachts.example/halyard-40')
  it('are about the name their first sentence opens with', () => {
    expect(judgeClaim('Kestrel 38: about 240 nm', [kestrel, halyard]).verdict).toBe('supported')
    expect(judgeClaim('Kestrel 38: about 550 nm', [kestrel, halyard]).verdict).not.toBe('supported')
    expect(judgeClaim('Halyard 40: about 240 nm', [kestrel, halyard]).verdict).not.toBe('supported')
  })
  it('count nothing in the other side of a comparison', () => {
    expect(judgeClaim('The Kestrel is the pricier of the two at $689,000.', [kestrel, halyard]).verdict).toBe('supported')
  })
})

describe('a figure and its measure', () => {
  it('is the measure named right after it, whatever else the claim says', () => {
    // (£12,000 plus 25% makes £15,000 by chance: the advance's own field says £12,000.)
    const statement = json({ author: 'Mirela Dragan', advance: { amount: 12000, currency: 'GBP', earned_out: true }, lines: [{ format: 'audiobook', rate_pct: 25 }] }, 't1', 'get_royalty_statement')
    expect(judgeClaim('Your £15,000 advance has fully earned out.', [statement]).verdict).toBe('contradicted')
    expect(judgeClaim('Your £12,000 advance has fully earned out.', [statement]).verdict).toBe('supported')
  })
})

describe("a failed call's arguments", () => {
  it('tie a report to it only by a name the claim writes as one', () => {
    const err: Evidence = { span_id: 'e1', text: 'rejected: Priority 1 work orders require a supervisor approval code', source: 'tool:create_work_order', kind: 'tool_error', about: 'create work order {"machine":"VMC-07","task":"Spindle bearing inspection"}' }
    const spindle = json({ machine: 'VMC-07', components: [{ name: 'Front bearing', hours: 1870 }, { name: 'Drawbar', hours: 400 }] }, 't1', 'get_machine')
    expect(judgeClaim('The overheating is most likely caused by a failing front bearing.', [spindle, err]).verdict).not.toBe('supported')
    expect(judgeClaim("I couldn't raise the work order for VMC-07: it was rejected for want of an approval code.", [spindle, err]).verdict).toBe('supported')
  })
})

describe('identifiers', () => {
  const note = doc('Special VFR (91.157) requires 1 SM flight visibility and remaining clear of clouds. Fixed-wing special VFR is not available at the busy airports listed in Appendix D of Part 91.', 'd1', 'https://study.example/notes/special-vfr')
  const metar = json({ station: 'KHPN', visibility_sm: 10, ceiling_ft: 3800 }, 't1', 'get_metar')
  it('back a claim by its words only in evidence that writes its identifier', () => {
    expect(judgeClaim('KHPN is one of the airports where fixed-wing special VFR is not available.', [note, metar]).verdict).not.toBe('supported')
    expect(judgeClaim('Fixed-wing special VFR is not available at the busy airports listed in Appendix D.', [note, metar]).verdict).toBe('supported')
  })
  it('given in passing as a reference are any result\'s', () => {
    const catalogue = json({ port: 'KOT', excursions: [{ title: 'Boat trip to Our Lady of the Rocks and Perast', price_eur_adult: 69 }, { title: 'Lovcen panoramic drive', price_eur_adult: 55 }] }, 't2', 'list_excursions')
    const booked = json({ status: 'confirmed', guests: 2, confirmation: 'EXC-55120' }, 't3', 'book_excursion')
    expect(judgeClaim('The Boat trip to Our Lady of the Rocks and Perast is €69 per adult (confirmation EXC-55120).', [catalogue, booked]).verdict).toBe('supported')
  })
})
