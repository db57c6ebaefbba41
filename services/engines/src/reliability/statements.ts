/**
 * Evidence cut into statements a claim can be compared with: sentences of text
 * evidence, and facts read out of structured (JSON) results. A fact keeps its
 * owner (the name, title, mode or id of the object it belongs to, and of the
 * objects around it), its key as words ("late_fee_pct" → late fee, 1.5%), its
 * value as a quantity when it is one (units read from the key: `_min`, `_kg`,
 * `_bytes`, `_eur`, `_pct`...), and a JSON boolean as the polarity of the key
 * ("insured": false states that it is not insured). Arrays of objects also state
 * their counts (how many items, how many distinct authors, how many by each).
 */
import type { Evidence } from './evidence.js'
import { polarity } from './polarity.js'
import { quantities, type Quantity } from './quantity.js'
import { Lru } from '../semantic/lru.js'
import { analyze, sentences } from './text.js'

export interface Statement {
  evidence: Evidence
  text: string
  /** Content stems (numbers aside) with their weight. */
  terms: Map<string, number>
  /** Content stems (antonyms read as their base word) and whether each is denied. */
  pol: Map<string, boolean>
  quantities: Quantity[]
  /** Stems of the entity the statement is about (an object's name, a document's subject). */
  owner: Set<string>
  /** The owner is one of several sibling objects (an array of options): a claim must name it to use it. */
  ambiguousOwner: boolean
  /** For facts in arrays: the sibling facts of the same key (for "first", "cheapest"). */
  siblings?: Statement[]
  /** A request (the user's message): usable as an operand or a yardstick, never as support. */
  request?: boolean
  /** Stems of the key a fact sits under ("online" for online.in_stock). */
  context?: Set<string>
  /** A fact's key path ("commits date"): siblings share it. */
  key?: string
  /** A JSON boolean: its key words are the predicate, the value its polarity. */
  boolean?: boolean
}

const NAME_KEYS = /^(?:name|title|mode|plan|product|model|compound|author|store|city|carrier|line|type|kind|label|customer|account|subject|service|tier|drug|medication|medicine|flight|hotel|airline|brand|item|sku|id|code|route|option|vendor|provider|location|branch|doctor|physician|clinic|player|team|company|region|country|airport|station|package|version|tag|room|category|tool|method|test|course|program|fund|ticker|symbol|card|policy|project|repo|file|path|image|host|server|region_name|[a-z_]*_name)$/i
const CURRENCY_KEYS: Record<string, string> = { usd: 'USD', eur: 'EUR', gbp: 'GBP', jpy: 'JPY', chf: 'CHF', cad: 'CAD', aud: 'AUD', inr: 'INR', sek: 'SEK', nok: 'NOK', dkk: 'DKK' }
const KEY_UNITS: Record<string, string> = {
  ms: 'ms', s: 's', sec: 's', secs: 's', seconds: 's', min: 'min', mins: 'min', minutes: 'min', h: 'h', hr: 'h', hrs: 'h', hours: 'h', days: 'days', day: 'days',
  weeks: 'weeks', months: 'months', years: 'years', mm: 'mm', cm: 'cm', m: 'm', km: 'km', mi: 'mi', miles: 'mi', in: 'inches', inches: 'inches', ft: 'ft',
  mg: 'mg', g: 'g', kg: 'kg', t: 't', lb: 'lb', lbs: 'lb', oz: 'oz', ml: 'mL', l: 'L', ul: 'µL', bytes: 'bytes', b: 'bytes', kb: 'kB', mb: 'MB', gb: 'GB',
  tb: 'TB', kib: 'KiB', mib: 'MiB', gib: 'GiB', pct: '%', percent: '%', c: '°C', f: '°F', celsius: '°C', fahrenheit: '°F',
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
/** A key that is a month or a date ("2026-09") reads as one ("September 2026"), not as two numbers. */
const dateKey = (k: string) => k.replace(/\b(\d{4})-(0[1-9]|1[0-2])(?:-(\d{2}))?\b/g, (_, y: string, m: string, d?: string) => `${MONTH_NAMES[Number(m) - 1]}${d ? ` ${Number(d)}` : ''} ${y}`)
const keyWords = (k: string) => dateKey(k).replace(/([a-z])([A-Z])/g, '$1 $2').split(/[_\s.-]+/).filter(Boolean).map((w) => w.toLowerCase())
/** Key words as the fact's text shows them: without the unit and currency words (the value carries them) or bare numbers. */
const keyText = (k: string) => keyWords(k).filter((w) => !CURRENCY_KEYS[w] && !KEY_UNITS[w] && w !== 'p' && !/^\d+$/.test(w)).join(' ')

/** A JSON leaf as the words and quantity a person would write: 25 with key duration_min → "25 min". */
function leafText(key: string, v: unknown, parent = ''): string {
  if (typeof v !== 'number') return String(v)
  const words = keyWords(key)
  // A currency named by the key or by the object it sits in ("totals_usd": {"2026-09": 6870.12}).
  // A rate: "p_per_kwh", "usd_per_night", "fee_per_day" → a price per unit, "7.5p per kwh".
  const per = words.indexOf('per')
  if (per > 0 && per < words.length - 1) {
    const unit = words.slice(per + 1).filter((w) => !CURRENCY_KEYS[w]).join(' ')
    if (words[per - 1] === 'p' || words[per - 1] === 'pence') return `${v}p per ${unit}`
    const c = [...words, ...keyWords(parent)].map((w) => CURRENCY_KEYS[w]).find(Boolean)
    return c ? `${c} ${v} per ${unit}` : `${v} per ${unit}`
  }
  const cur = [...words, ...keyWords(parent)].map((w) => CURRENCY_KEYS[w]).find(Boolean)
  if (cur) return `${cur} ${v}`
  const last = words[words.length - 1] ?? ''
  const prev = words[words.length - 2] ?? ''
  // "molar_mass_g_mol": a compound unit, not grams.
  if (KEY_UNITS[last] && !KEY_UNITS[prev]) return `${v} ${KEY_UNITS[last]}`
  if (/^(?:pct|percent|percentage|rate_pct)$/.test(last) || /percent|pct/.test(key)) return `${v}%`
  return String(v)
}

const stems = (text: string) => new Set([...analyze(text).terms.keys()].filter((t) => !t.startsWith('#')))

interface Parsed {
  terms: Map<string, number>
  pol: Map<string, boolean>
  quantities: Quantity[]
}

/** Texts repeat across traces (the same documents and tool results): each is read once per process. */
const parsedTexts = new Lru<Parsed>(20_000)

function parse(text: string): Parsed {
  const hit = parsedTexts.get(text)
  if (hit) return hit
  const a = analyze(text)
  const terms = new Map([...a.terms].filter(([t]) => !t.startsWith('#')))
  const pol = polarity(text)
  for (const t of pol.keys()) if (!terms.has(t)) terms.set(t, 1)
  const p = { terms, pol, quantities: quantities(text) }
  parsedTexts.set(text, p)
  return p
}

function statement(evidence: Evidence, text: string, owner: Set<string>, extra: Partial<Statement> = {}): Statement {
  const p = parse(text)
  const terms = new Map(p.terms)
  for (const o of owner) if (!terms.has(o)) terms.set(o, 1)
  return { evidence, text, terms, pol: p.pol, quantities: p.quantities, owner, ambiguousOwner: false, ...extra }
}

/** Two adjacent sentences as one statement, from theirs (no second reading; figures keep their place in the joined text). */
function joined(a: Statement, b: Statement): Statement {
  const shift = a.text.length + 1
  return {
    ...a,
    text: `${a.text} ${b.text}`,
    terms: new Map([...b.terms, ...a.terms]),
    pol: new Map([...b.pol].map(([t, n]) => [t, n || (a.pol.get(t) ?? false)] as const).concat([...a.pol].filter(([t]) => !b.pol.has(t)))),
    quantities: [...a.quantities, ...b.quantities.map((q) => ({ ...q, index: q.index + shift, end: q.end + shift }))],
  }
}

interface Ctx {
  evidence: Evidence
  out: Statement[]
}

/** What names an object: its name-like fields, else (an item of a list) its first short text field. */
function ownerOf(o: Record<string, unknown>, inList: boolean): string[] {
  const named = Object.entries(o)
    .filter(([k, v]) => NAME_KEYS.test(k) && (typeof v === 'string' || typeof v === 'number') && String(v).length <= 60)
    .map(([, v]) => String(v))
  if (named.length || !inList) return named
  const first = Object.values(o).find((v) => typeof v === 'string' && v.length <= 60 && !/^\d{4}-\d{2}/.test(v))
  return first ? [String(first)] : []
}

function walk(ctx: Ctx, v: unknown, path: string[], owners: string[], ambiguous: boolean, inList = false): Statement[] {
  const made: Statement[] = []
  if (Array.isArray(v)) {
    const objects = v.filter((x): x is Record<string, unknown> => Boolean(x) && typeof x === 'object' && !Array.isArray(x))
    if (objects.length === v.length && objects.length > 0) {
      const perItem = objects.map((o) => walk(ctx, o, path, owners, objects.length > 1, true))
      // Facts of the same key across the items are siblings: "first", "cheapest" compare among them.
      const byKey = new Map<string, Statement[]>()
      for (const facts of perItem) for (const f of facts) if (f.key) byKey.set(f.key, [...(byKey.get(f.key) ?? []), f])
      for (const group of byKey.values()) if (group.length > 1) for (const f of group) f.siblings = group
      const noun = path[path.length - 1] ?? 'items'
      const counts: string[] = [`${objects.length} ${keyWords(noun).join(' ')}`]
      const keys = new Set(objects.flatMap((o) => Object.keys(o)))
      for (const k of keys) {
        const values = objects.map((o) => o[k]).filter((x) => typeof x === 'string' && x.length <= 60) as string[]
        if (values.length < 2) continue
        const distinct = new Set(values)
        counts.push(`${distinct.size} ${keyWords(k).join(' ')}s of the ${keyWords(noun).join(' ')}`)
        for (const d of distinct) counts.push(`${values.filter((x) => x === d).length} ${keyWords(noun).join(' ')} by ${d}`)
      }
      for (const c of counts) ctx.out.push(statement(ctx.evidence, `${owners.join(' ')} ${c}`, new Set(owners.flatMap((o) => [...stems(o)]))))
      return perItem.flat()
    }
    if (v.every((x) => typeof x !== 'object' || x === null)) {
      const key = path[path.length - 1] ?? ''
      const text = `${owners.join(' ')} ${keyWords(path.join(' ')).join(' ')}: ${v.map((x) => leafText(key, x)).join(', ')}`
      const s = statement(ctx.evidence, text, new Set(owners.flatMap((o) => [...stems(o)])), { ambiguousOwner: ambiguous })
      ctx.out.push(s)
      return [s]
    }
    return v.flatMap((x) => walk(ctx, x, path, owners, ambiguous))
  }
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>
    // An object names itself; one without a name belongs to the object around it.
    const own = ownerOf(o, inList)
    const here = own.length ? own : owners
    const ownerStems = new Set(here.flatMap((x) => [...stems(x)]))
    for (const [k, child] of Object.entries(o)) {
      if (child && typeof child === 'object') {
        made.push(...walk(ctx, child, [...path, k], here, ambiguous))
        continue
      }
      if (child === null || child === undefined) continue
      const words = keyText([...path.slice(-1), k].join(' '))
      if (typeof child === 'boolean') {
        // A JSON false denies its key: "insured": false states "not insured".
        const parent = path[path.length - 1]
        const context = parent && !/^(?:result|results|data|response|output|item|items|record|records|details|info)$/i.test(parent) ? stems(keyWords(parent).join(' ')) : undefined
        const s = statement(ctx.evidence, `${here.join(' ')} | ${words}: ${child}`, ownerStems, { ambiguousOwner: ambiguous, key: words, context })
        s.pol = new Map([...polarity(keyWords(k).join(' ')).keys()].map((t) => [t, !child]))
        s.boolean = true
        made.push(s)
        continue
      }
      if (child === 0) {
        // A zero denies its key like a false: "critical": 0 is "no critical", "paid_usd": 0 is "not paid".
        const s = statement(ctx.evidence, `${here.join(' ')} | ${words}: ${leafText(k, child)}`, ownerStems, { ambiguousOwner: ambiguous, key: words })
        s.pol = new Map([...polarity(keyWords(k).filter((w) => !CURRENCY_KEYS[w] && !KEY_UNITS[w]).join(' ')).keys()].map((t) => [t, true]))
        s.boolean = true
        made.push(s)
        continue
      }
      const value = leafText(k, child, path[path.length - 1])
      // Long strings are prose: their sentences, about the owner.
      if (typeof child === 'string' && child.length > 80) {
        for (const sen of sentences(child)) made.push(statement(ctx.evidence, `${sen} (${here.join(' ')})`, ownerStems, { ambiguousOwner: ambiguous }))
        continue
      }
      made.push(statement(ctx.evidence, `${here.join(' ')} | ${words}: ${value}`, ownerStems, { ambiguousOwner: ambiguous, key: words }))
    }
    ctx.out.push(...made)
    return made
  }
  return made
}

const parseJson = (s: string): unknown => {
  const t = s.trim()
  if (!/^[[{]/.test(t)) return undefined
  try {
    return JSON.parse(t)
  } catch {
    return undefined
  }
}

/** The subject a document or pasted block opens with ("High-Yield Savings: 4.10% APY…", "[cd12] (url) 12-month CD: …"). */
function subjectOf(text: string): string {
  const head = text.replace(/^\s*\[[^\]]*\]\s*(?:\([^)]*\))?\s*/, '')
  const m = /^([^:.\n]{2,48}):/.exec(head)
  return m && m[1]!.split(/\s+/).length <= 6 ? m[1]! : ''
}

const asks = (s: string) => /\?\s*$/.test(s) || /^(?:please|can you|could you|would you|tell me|explain|write|show me|give me|list|find|use|answer|help|summari[sz]e|return)\b/i.test(s)

export function statementsOf(evidence: Evidence[]): Statement[] {
  const out: Statement[] = []
  for (const e of evidence) {
    const json = e.kind === 'tool_result' ? parseJson(e.text) : undefined
    if (json !== undefined && typeof json === 'object' && json !== null) {
      const ctx: Ctx = { evidence: e, out: [] }
      walk(ctx, json, [], [], false)
      out.push(...new Set(ctx.out))
      continue
    }
    const subject = subjectOf(e.text)
    const owner = subject ? stems(subject) : new Set<string>()
    // Questions and requests in a message state nothing.
    const sents = sentences(e.text).filter((s) => !(e.kind === 'message' && asks(s)))
    const single = sents.map((s) => statement(e, s, owner))
    single.forEach((s, i) => {
      out.push(s)
      // A claim often fuses two adjacent sentences of a document.
      if (i + 1 < single.length) out.push(joined(s, single[i + 1]!))
    })
  }
  return out
}

/** The user's own words, as yardsticks and operands ("I land at 23:10", "120 km"), never as support. */
export function requestStatements(request: string): Statement[] {
  const e: Evidence = { span_id: '', text: request, source: null, kind: 'message' }
  return sentences(request).map((s) => statement(e, s, new Set(), { request: true }))
}

