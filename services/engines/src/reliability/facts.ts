/**
 * Structured results read as facts: every leaf of a JSON tool result becomes
 * (entity, attribute, value) with its quantity. The entity is the object's own
 * name-like field (name, title, plan, product…; for an item of a list, its first
 * short text field), else the name of the object around it; the attribute is the
 * key path as words ("late_fee_pct" → late fee); the value's unit comes from the
 * key (`duration_min`, `weight_kg`, `price_eur`, `rate_usd_per_kg`), from the
 * object (`{"value": 6.1, "unit": "%"}`, `{"amount": 612.4, "currency": "USD"}`,
 * `{"currency": "JPY", "results": [...]}`, `"units": {"snow": "cm"}`), and an
 * amount under a money key whose currency nothing says meets any currency. A JSON
 * boolean is the attribute's polarity ("insured": false: not insured), a null its
 * absence. Tables (`columns` + `rows`) read as lists of objects. A list of objects
 * also states its counts (3 commits, 2 authors, 2 by Priya N), and the facts of
 * one key across its items are siblings ("the first", "the cheapest", "both").
 */
import { groupBy } from '@svc/shared/group-by'
import { quantities, type Quantity } from './quantity.js'
import { sentences } from './text.js'
import { attributeOf, GENERIC_PARENTS, isCurrency, keyWords, numberValue, numericString, objectKeyUnit, ownerOf, stringKeyUnit, STATUS_KEYS, STATUS_WORDS, tableRows, weekdays, type Scope } from './fact-keys.js'

export interface Fact {
  /** Names of the entity: the object's name-like fields, else those of the objects around it. */
  owners: string[]
  /** The entity is one of several sibling objects of a list: a claim must name it to use the fact. */
  ambiguous: boolean
  /** The key as words, without unit and currency words: the attribute ("late fee"). */
  attribute: string
  /** The leaf key's own words: a flag's predicate ("refundable" of fee.refundable). */
  predicate: string
  /** Words of the key the object sits under ("online" for online.in_stock); '' at the top or under a generic key. */
  parent: string
  /** How the fact reads: "Aero 14 | weight: 1.29 kg". */
  text: string
  /** The value's quantities, positioned in `text`. */
  quantities: Quantity[]
  /** A JSON boolean: the attribute holds (true) or not (false); a null is absence (false). */
  flag?: boolean
  /** A count of zero: the attribute does not apply, which backs a denial and contradicts nothing. */
  absent?: boolean
  /** An amount of zero: nothing to pay ("shipping_usd": 0 is free shipping). */
  free?: boolean
  /** Facts of one key across the items of one list share a group (siblings). */
  group?: string
  /** A long string: its sentences, about the entity. */
  prose?: boolean
  /** A count over a list's items ("2 governing laws of the documents"): it backs figures, never words. */
  tally?: boolean
  /** The facts of the items of one list share it (their owners are told apart by what they do not share). */
  list?: string
  /** An item's other short values ("period": "2026-11", "status": "open"): they tell it from its siblings too. */
  aliases?: string[]
}


interface Walk {
  out: Fact[]
  groups: number
}

/**
 * Facts read from one JSON value, at most (the labelled sets' largest result has under a hundred): a result of
 * a hundred thousand values is read up to there, so what one tool returns bounds what a trace costs to judge.
 */
const MAX_FACTS = 5000
/** Distinct values of one key a list's tally counts items by. */
const MAX_TALLIES = 50

function fact(owners: string[], ambiguous: boolean, attribute: string, predicate: string, parent: string, valueText: string, qs: Quantity[], extra: Partial<Fact> = {}): Fact {
  const head = `${owners.join(' ')} | `
  const prefix = `${head}${attribute}: `
  const shift = prefix.length
  // A key may hold a figure of its own: "failed_logins_24h" is about the last 24 hours.
  const inKey = /\d/.test(attribute) ? quantities(attribute.replace(/\b(\d+)([a-z]+)\b/g, '$1 $2')).filter((q) => q.dim !== 'count') : []
  return {
    owners, ambiguous, attribute, predicate, parent, text: prefix + valueText,
    quantities: [...inKey.map((q) => ({ ...q, index: q.index + head.length, end: q.end + head.length })), ...qs.map((q) => ({ ...q, index: q.index + shift, end: q.end + shift }))],
    ...extra,
  }
}

function walkObject(w: Walk, o: Record<string, unknown>, path: string[], owners: string[], ambiguous: boolean, inList: boolean, outer: Scope): Fact[] {
  if (w.out.length >= MAX_FACTS) return []
  const table = tableRows(o)
  if (table) {
    const rest = Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'columns' && k !== 'rows'))
    return [...walkValue(w, table, [...path, 'rows'], owners, ambiguous, false, outer), ...walkObject(w, rest, path, owners, ambiguous, inList, outer)]
  }
  // An object names itself; one without a name belongs to the object around it.
  const own = ownerOf(o, inList)
  const here = own.length ? own : owners
  const scope: Scope = {
    currency: isCurrency(o.currency) ? o.currency : isCurrency(o.currency_code) ? o.currency_code : outer.currency,
    units: o.units && typeof o.units === 'object' && !Array.isArray(o.units) ? { ...outer.units, ...(o.units as Record<string, string>) } : outer.units,
  }
  const objectUnit = typeof o.unit === 'string' && o.unit.length <= 12 ? o.unit : undefined
  scope.unit = objectUnit ?? outer.unit
  const parentKey = path[path.length - 1] ?? ''
  // A list item's key names the collection ("journeys"), not a part of the item as "online" of online.in_stock does.
  const parent = parentKey && !inList && !GENERIC_PARENTS.test(parentKey) ? keyWords(parentKey).join(' ') : ''
  const made: Fact[] = []
  for (const [key, child] of Object.entries(o)) {
    const k = weekdays(key, parentKey)
    if (child && typeof child === 'object') {
      if (key === 'units') continue
      const unit = objectUnit ? undefined : objectKeyUnit(key)
      made.push(...walkValue(w, child, [...path, k], here, ambiguous, false, unit ? { ...scope, unit } : scope))
      continue
    }
    if (child === undefined || (k === 'unit' && objectUnit) || (k === 'currency' && scope.currency)) continue
    const attribute = attributeOf(keyWords([parentKey, k].filter((x) => x && !GENERIC_PARENTS.test(x)).join(' ')))
    const predicate = attributeOf(keyWords(k))
    if (child === null) {
      // A null is evidence of absence: "registered": null, "sun": null.
      made.push(fact(here, ambiguous, attribute, predicate, parent, 'none', [], { flag: false }))
      continue
    }
    if (typeof child === 'boolean') {
      made.push(fact(here, ambiguous, attribute, predicate, parent, String(child), [], { flag: child }))
      continue
    }
    if (typeof child === 'number') {
      const { text, quantities: qs } = numberValue(k, child, parentKey, scope, objectUnit)
      // A zero denies its key as a false would: "paid_usd": 0 is not paid, "fare_difference_eur": 0 no fare difference.
      // A count of zero ("critical": 0 is no critical issue) only backs a denial: "failed": 0 says nothing of skipped jobs;
      // so does a measure of zero ("precipitation_mm": 0 is no precipitation, "delay_min": 0 no delay). A zero reading on
      // a scale (0 °C, midnight, a day) is a value like any other.
      const zero = child === 0 && !qs.some((q) => q.dim === 'temperature' || q.dim === 'date' || q.dim === 'time')
      const money = qs.some((q) => q.dim === 'money')
      made.push(fact(here, ambiguous, attribute, predicate, parent, text, qs, zero ? { flag: false, ...(money ? { free: true } : { absent: true }) } : {}))
      continue
    }
    const s = String(child)
    // Long strings are prose: their sentences, about the owner.
    if (s.length > 80) {
      for (const sen of sentences(s, true)) made.push({ owners: here, ambiguous, attribute, predicate, parent, text: `${sen} (${here.join(' ')})`, quantities: quantities(sen), prose: true })
      continue
    }
    const status = STATUS_KEYS.test(k) ? STATUS_WORDS[s.toLowerCase()] : undefined
    const unit = numericString(s) ? (objectUnit ?? stringKeyUnit(k)) : undefined
    const valueText = `${unit ? `${s} ${unit}` : s.replace(/_/g, ' ')}${status ? ` (${status})` : ''}`
    made.push(fact(here, ambiguous, attribute, predicate, parent, valueText, quantities(valueText)))
  }
  w.out.push(...made)
  return made
}

function walkValue(w: Walk, v: unknown, path: string[], owners: string[], ambiguous: boolean, inList: boolean, scope: Scope): Fact[] {
  if (!Array.isArray(v)) return v && typeof v === 'object' ? walkObject(w, v as Record<string, unknown>, path, owners, ambiguous, inList, scope) : []
  const objects = v.filter((x): x is Record<string, unknown> => Boolean(x) && typeof x === 'object' && !Array.isArray(x))
  if (objects.length === v.length && objects.length > 0) {
    const perItem = objects.map((o) => walkObject(w, o, path, owners, objects.length > 1, true, scope))
    const list = `l${w.groups++}`
    perItem.forEach((facts, i) => {
      const aliases = Object.values(objects[i]!).filter((x): x is string => typeof x === 'string' && x.length <= 40)
      for (const f of facts) {
        f.list ??= list
        f.aliases ??= aliases
      }
    })
    // Facts of the same key across the items are siblings: "first", "cheapest", "both" compare among them.
    for (const group of groupBy(perItem.flat(), (f) => (f.prose ? undefined : f.attribute)).values())
      if (group.length > 1) {
        const id = `g${w.groups++}`
        for (const f of group) f.group = id
      }
    w.out.push(...listCounts(objects, path, owners))
    return perItem.flat()
  }
  if (v.every((x) => typeof x !== 'object' || x === null)) {
    const key = path[path.length - 1] ?? ''
    const attribute = attributeOf(keyWords(path.filter((p) => !GENERIC_PARENTS.test(p)).join(' ')))
    if (!v.length) {
      // An empty list is the absence of what it lists: "warnings": [] is no warnings, as a count of zero.
      const f = fact(owners, ambiguous, attribute, attributeOf(keyWords(key)), '', 'none', [], { flag: false, absent: true })
      w.out.push(f)
      return [f]
    }
    const valueText = v.map((x) => (typeof x === 'number' ? numberValue(key, x, '', scope, undefined).text : String(x))).join(', ')
    const f = fact(owners, ambiguous, attribute, attribute, '', valueText, quantities(valueText))
    w.out.push(f)
    return [f]
  }
  return v.flatMap((x) => walkValue(w, x, path, owners, ambiguous, false, scope))
}

/** A list of objects states how many there are, of each distinct value, and by whom. */
function listCounts(objects: Array<Record<string, unknown>>, path: string[], owners: string[]): Fact[] {
  const noun = keyWords(path[path.length - 1] ?? 'items').join(' ')
  const texts: string[] = [`${objects.length} ${noun}`]
  const keys = new Set(objects.flatMap((o) => Object.keys(o)))
  for (const k of keys) {
    // How many items a flag holds for, and for how many it does not: "3 modules approved", "1 modules not approved".
    const flags = objects.map((o) => o[k]).filter((x): x is boolean => typeof x === 'boolean')
    if (flags.length >= 2) {
      const yes = flags.filter(Boolean).length
      texts.push(`${yes} ${noun} ${keyWords(k).join(' ')}`, `${flags.length - yes} ${noun} not ${keyWords(k).join(' ')}`)
      continue
    }
    const values = objects.map((o) => o[k]).filter((x) => typeof x === 'string' && x.length <= 60) as string[]
    if (values.length < 2) continue
    const distinct = groupBy(values, (x) => x)
    texts.push(`${distinct.size} ${keyWords(k).join(' ')}s of the ${noun}`)
    // (a tally by value is of a few values: one by each of a thousand names says nothing the items do not)
    if (distinct.size > MAX_TALLIES) continue
    for (const [d, same] of distinct) {
      const status = STATUS_KEYS.test(k) ? STATUS_WORDS[d.toLowerCase()] : undefined
      texts.push(`${same.length} ${noun} by ${d.replace(/_/g, ' ')}${status ? ` (${status})` : ''}`)
    }
  }
  return texts.map((t) => ({ owners, ambiguous: false, attribute: noun, predicate: noun, parent: '', text: `${owners.join(' ')} ${t}`, quantities: quantities(`${owners.join(' ')} ${t}`), prose: true, tally: true }))
}

/** The facts of a JSON value (a tool result). */
export function factsOf(json: unknown): Fact[] {
  const w: Walk = { out: [], groups: 0 }
  walkValue(w, json, [], [], false, false, {})
  return [...new Set(w.out)]
}
