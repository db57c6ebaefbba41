/**
 * Evidence cut into statements a claim can be compared with: sentences of text
 * evidence (and pairs of adjacent ones), and the facts of structured results
 * (facts.ts). A statement keeps its owner: a fact's entity, or the subject a
 * document or sentence opens with ("Pro - 600 requests per minute", "Dental Plus:
 * $18.50 per paycheck"), so a figure of one plan never backs a claim about
 * another. A JSON boolean is the polarity of its key's predicate.
 */
import type { Evidence } from './evidence.js'
import { groupBy } from '@svc/shared/group-by'
import { parseJson } from '@svc/shared/json-limits'
import { factsOf, type Fact } from './facts.js'
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
  /**
   * The owner's stems that tell it from its siblings ("helix" of "NDA-Helix-2026" beside "NDA-Corvid-2025"; "light" of
   * "Economy Light" beside "Economy Classic"): naming a stem all siblings share names none of them.
   */
  distinct?: Set<string>
  /**
   * The owner is written as a machine writes a value ("rain_gauge", "standard"), not as a name: its words are no
   * entity a claim could name in passing ("Rain: 1.52 in" is not about the rain gauge).
   */
  lowercaseOwner?: boolean
  /** The owner is one of several sibling objects (an array of options): a claim must name it to use it. */
  ambiguousOwner: boolean
  /** The dates that tell a list item from its siblings ("date": "2026-12-19" of a forecast day). */
  dates?: Quantity[]
  /** For facts in arrays: the sibling facts of the same key (for "first", "cheapest", "both"). */
  siblings?: Statement[]
  /** A request (the user's message): usable as an operand or a yardstick, never as support. */
  request?: boolean
  /** Stems of the key a fact sits under ("online" for online.in_stock). */
  context?: Set<string>
  /** A fact's attribute ("late fee"): siblings share it. */
  key?: string
  /** A JSON boolean (or a null, or a zero count): the key's predicate holds or not. */
  boolean?: boolean
  /** The value of a flag: the attribute holds (a null or a zero count: false, and `absent`). */
  flag?: boolean
  /** A null or a zero count: evidence of absence, which backs a denial but contradicts nothing. */
  absent?: boolean
  /** An amount of zero: a claim that it is free or costs nothing agrees with it. */
  free?: boolean
  /** A count over a list's items: it backs figures, never words. */
  tally?: boolean
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

/** "line 3" → "line#3": a record named by a number and the key it is under, which the claim must say together. */
const numberedName = (owner: string): string | null => {
  const m = /^([a-z]+)[_ ](\d{1,6})$/i.exec(owner.trim())
  return m ? `${m[1]!.toLowerCase()}#${m[2]}` : null
}

/** A fact as a statement: its text's words, its own quantities, a flag's polarity on its attribute's words. */
function factStatement(e: Evidence, f: Fact): Statement {
  const owner = new Set(f.owners.flatMap((o) => [...stems(o), ...[numberedName(o)].filter((n) => n !== null)]))
  if (f.prose) return statement(e, f.text, owner, { ambiguousOwner: f.ambiguous, ...(f.tally ? { tally: true } : {}) })
  const context = f.parent ? stems(f.parent) : undefined
  const s = statement(e, f.text, owner, { ambiguousOwner: f.ambiguous, key: f.attribute, ...(context ? { context } : {}) })
  if (f.owners.length && f.owners.every((o) => /^[a-z0-9_-]+$/.test(o))) s.lowercaseOwner = true
  // (and the window its key names: "et_last_7d_in": 1.89 is 1.89 inches over 7 days)
  s.quantities = [...f.quantities, ...(/\d{1,3}d\b/.test(f.attribute) ? quantities(f.attribute).filter((q) => q.dim === 'duration') : [])]
  if (f.flag !== undefined) {
    // The key is the predicate; its words' own denials ("non_refundable") turn with the value.
    s.pol = new Map([...polarity(f.predicate).entries()].map(([t, denied]) => [t, denied === f.flag]))
    s.boolean = true
    s.flag = f.flag
    if (f.absent) s.absent = true
    if (f.free) s.free = true
  }
  return s
}

/** Each owner's stems (and its item's other short values) minus those every owner of the set shares. */
function distinguish(statements: Statement[], aliases: Map<Statement, string[]> = new Map()): void {
  const names = new Map(statements.map((s) => [s, new Set([...s.owner, ...(aliases.get(s) ?? []).flatMap((a) => [...stems(a)])])]))
  const owners = [...new Map([...names.values()].map((o) => [[...o].sort().join(' '), o])).values()]
  if (owners.length < 2) return
  const shared = [...owners[0]!].filter((t) => owners.every((o) => o.has(t)))
  for (const s of statements) {
    const own = [...names.get(s)!].filter((t) => !shared.includes(t))
    if (shared.length || own.length > s.owner.size) s.distinct = new Set(own)
  }
}

function jsonStatements(e: Evidence, json: unknown): Statement[] {
  const facts = factsOf(json)
  const made = new Map(facts.map((f) => [f, factStatement(e, f)]))
  for (const group of groupBy(facts, (f) => f.group).values()) {
    const siblings = group.map((f) => made.get(f)!)
    for (const s of siblings) s.siblings = siblings
  }
  // Items of one list: what they all share in their names names none of them.
  const byList = [...groupBy(facts, (f) => f.list).values()].map((group) => group.map((f) => made.get(f)!))
  const aliases = new Map(facts.filter((f) => f.aliases).map((f) => [made.get(f)!, f.aliases!]))
  for (const items of byList) distinguish(items, aliases)
  // An item dated by a field of its own ("date": "2026-12-19") is named by that date.
  for (const [s, names] of aliases) {
    if (!s.ambiguousOwner) continue
    const dates = names.filter((a) => DATE_VALUE.test(a)).flatMap((a) => quantities(a).filter((q) => q.dim === 'date' && q.hasYear))
    if (dates.length) s.dates = dates
  }
  return [...made.values()]
}

/** A value that is a date and nothing else ("2026-12-19", "Dec 19, 2026"). */
const DATE_VALUE = /^(?:\d{4}-\d{2}-\d{2}(?:T[\d:.]+Z?)?|[A-Z][a-z]{2,8}\.? \d{1,2},? \d{4}|\d{1,2} [A-Z][a-z]{2,8}\.? \d{4})$/

/** A tool result's object or list; a bare number, string or flag is read as text. */
const jsonContainer = (s: string): unknown => (/^[[{]/.test(s.trim()) ? parseJson(s) : undefined)

/**
 * A name a short first sentence opens with, then a description: "Kestrel 38 (2021), semi-displacement trawler." (a
 * model's number is part of its name; a greeting is no name).
 */
const NAMED_OPENING = /^(?!(?:Dear|Hi|Hello|Thanks|Thank)\b)((?:[A-Z][\w'&-]*|\d[\w.-]*)(?:\s+(?:[A-Z][\w'&-]*|\d[\w.-]*)){1,3})\s*(?:\([^)]*\))?\s*,/

/** A short first sentence in title case ("Distilled Reasoners (September 2026).") is the document's title. */
function titleOf(text: string): string {
  const first = sentences(text)[0] ?? ''
  const named = NAMED_OPENING.exec(first)
  if (named && first.length < text.length && first.split(/\s+/).length <= 12) return named[1]!
  const words = first.replace(/\([^)]*\)|[.:]$/g, ' ').trim().split(/\s+/).filter(Boolean)
  const caps = words.filter((w) => /^[A-Z0-9]/.test(w)).length
  return first.length < text.length && words.length >= 1 && words.length <= 8 && caps >= Math.max(1, words.length - 2) && !/\d{2,}/.test(first.replace(/\([^)]*\)/g, '')) ? words.join(' ') : ''
}

/** A label a passage or sentence opens with: "12-month CD: …", "[cd12] (url) High-Yield Savings: …", "Pro - 600 requests per minute". */
const HEAD = /^([^:.\n]{2,48}?)(:\s| [-–] )/
function headOf(text: string): { head: string; dash: boolean } {
  let rest = text.replace(/^\s*\[[^\]]*\]\s*(?:\([^)]*\))?\s*/, '')
  let head = ''
  let dash = false
  // "Checked baggage by fare brand: Economy Light - no checked bag": the innermost label names the entity.
  for (let m = HEAD.exec(rest); m && m[1]!.split(/\s+/).length <= 6; m = HEAD.exec(rest)) {
    head = m[1]!
    dash = m[2] !== ': '
    rest = rest.slice(m[0].length)
  }
  return { head, dash }
}

// (and a system prompt's instructions and the role it gives: "Always check the pilot's logbook …", "You are the
// phishing-report assistant …", "Tools: search_mail_logs, block_domain")
const asks = (s: string) =>
  /\?\s*$/.test(s) ||
  /^(?:please|can you|could you|would you|tell me|explain|write|show me|give me|list|find|use|answer|help|summari[sz]e|return|always|never|do not|don't|only (?:use|answer|quote|book)|check|read|call|ask|make sure|keep|avoid|reply|respond|verify|report|greet|refer|you (?:must|should)|you are (?:a|an|the)|your (?:job|task|role) is|tools?:)\b/i.test(s)

function textStatements(e: Evidence): Statement[] {
  const subject = headOf(e.text).head || titleOf(e.text)
  const docOwner = subject ? stems(subject) : new Set<string>()
  // Questions and requests in a message state nothing.
  const sents = sentences(e.text, true).filter((s) => !(e.kind === 'message' && asks(s)))
  let current: Set<string> | null = null
  const single = sents.map((s, i) => {
    // A sentence with a name of its own ("Enterprise - 3,000 requests per minute", "Dental Plus: …") is about that
    // entity, and so are the sentences after it up to the next name ("Dental PPO: $36.80 a month. Annual maximum
    // $2,000."); a label in sentence case or of one word ("Early withdrawal penalty: …", "Weight: …") names an
    // attribute of the document's subject.
    const { head, dash } = i > 0 ? headOf(s) : { head: '', dash: false }
    const words = head.split(/\s+/)
    const own = head && words.every((w) => /^[A-Z0-9]/.test(w)) && (dash || words.length > 1) ? head : ''
    if (own) current = stems(own)
    return statement(e, s, current ?? docOwner)
  })
  distinguish(single.filter((s) => s.owner !== docOwner))
  const out: Statement[] = []
  single.forEach((s, i) => {
    out.push(s)
    // A claim often fuses two adjacent sentences of a document (of one entity).
    const next = single[i + 1]
    if (next && next.owner === s.owner) out.push(joined(s, next))
  })
  return out
}

/**
 * Statements read from one trace's evidence, at most (the first, in the evidence's order; the labelled sets'
 * largest trace has under a hundred): thousands of tool results of thousands of facts each must not be read whole.
 */
const MAX_TRACE_STATEMENTS = 20_000

/** Two facts of one record: the same owners (a record's fields share its name-like values). */
export const sameRecord = (a: Statement, b: Statement) => a.owner.size === b.owner.size && [...a.owner].every((o) => b.owner.has(o))

export function statementsOf(evidence: Evidence[]): Statement[] {
  const out: Statement[] = []
  for (const e of evidence) {
    if (out.length >= MAX_TRACE_STATEMENTS) break
    const json = e.kind === 'tool_result' ? jsonContainer(e.text) : undefined
    if (json !== undefined && typeof json === 'object' && json !== null) out.push(...jsonStatements(e, json))
    else out.push(...textStatements(e))
  }
  return out.slice(0, MAX_TRACE_STATEMENTS)
}

/** The user's own words, as yardsticks and operands ("I land at 23:10", "120 km"), never as support. */
export function requestStatements(request: string): Statement[] {
  const e: Evidence = { span_id: '', text: request, source: null, kind: 'message' }
  return sentences(request, true).map((s) => statement(e, s, new Set(), { request: true }))
}
