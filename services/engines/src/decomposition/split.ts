/**
 * Splitting a request into the parts a person would check off: enumerations
 * ("1) ... 2) ...", bullet lines), then request sentences (questions and
 * imperatives; context sentences such as "I'm moving abroad" are not tasks), then
 * clauses joined by "and / also / then / ," when the joined part starts a new
 * request (a verb or a question word), so "compare Plan A and Plan B" stays whole.
 */
import { contentWords, sentences, stem } from './text.js'

/** Verbs that open a request clause. */
const VERBS = new Set(
  `find book tell give list summarize summarise compare check recommend draft write send explain describe look lookup issue create add schedule cancel
update show calculate compute translate classify search fetch plan suggest review analyze analyse estimate convert remind order buy reserve set delete
remove fix refund email call provide generate identify outline prepare organize make confirm verify rank sort tag extract pull report share notify
open close arrange investigate diagnose rotate change name define predict research collect gather answer rewrite edit proofread`.split(/\s+/),
)
/** Verbs that are as often nouns: they open a clause only when followed by a determiner or pronoun ("book a hotel", not "book club"). */
const AMBIGUOUS = new Set(['plan', 'order', 'email', 'report', 'call', 'set', 'name', 'change', 'list', 'check', 'book', 'show', 'fix', 'open', 'close', 'sort', 'tag', 'rank', 'pull', 'share', 'make', 'look', 'review', 'search', 'refund', 'answer', 'edit', 'order', 'research'])
const DETERMINERS = new Set(`a an the my our your me us them it this that these those each all up out whether if for some any his her their one two three every what how`.split(' '))
const QUESTION_START = /^(what|what's|whats|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|would|will|should|shall|may|am|has|have)\b/i
const REQUEST_START = /^(please|kindly|i need|i want|i'd like|i would like|we need|we want|help me|let me know|i'm looking for|i am looking for)\b/i
const CONNECTOR = /^(?:and|also|then|plus|finally|lastly|additionally|next|as well as|and then|and also|after that|so)\b[\s,]*/i

const firstWords = (s: string) => s.toLowerCase().match(/[a-z']+/g) ?? []

/** True when the clause opens a new request of its own. */
function startsRequest(clause: string): boolean {
  const s = stripConnectors(clause).replace(/^please\s+/i, '')
  if (QUESTION_START.test(s) || REQUEST_START.test(s)) return true
  const [w0, w1] = firstWords(s)
  if (!w0 || !VERBS.has(w0)) return /^(i|we)\s+(also\s+)?(need|want|would like)\b/i.test(s)
  return !AMBIGUOUS.has(w0) || (w1 !== undefined && DETERMINERS.has(w1))
}

/** A sentence that asks for something (a question or an imperative), as opposed to context. */
function isRequest(sentence: string): boolean {
  return /\?\s*$/.test(sentence) || startsRequest(sentence) || /\b(can|could|would|will) you\b/i.test(sentence)
}

function stripConnectors(s: string): string {
  let out = s.trim()
  for (let prev = ''; prev !== out; ) {
    prev = out
    out = out.replace(CONNECTOR, '').trim()
  }
  return out
}

const clean = (s: string) =>
  stripConnectors(s)
    .replace(/^[\s,;:\-–]+/, '')
    .replace(/[\s,;:]+(and|or)?[\s,;:]*$/i, '')
    .replace(/[\s,;:]+$/, '')
    .trim()

const VERB_STEMS = new Set([...VERBS].map(stem))
/** "can you fix it?" only points back at the clause before it: a part needs an object of its own. */
const hasObject = (clause: string) => contentWords(clause).some((w) => !VERB_STEMS.has(w))

/** Splits a sentence at coordinators whose right-hand side starts a new request. */
function splitClauses(sentence: string): string[] {
  const pieces = sentence.split(/(;\s*|,?\s+and then\s+|,?\s+and also\s+|,?\s+then\s+|,?\s+and\s+|,?\s+also\s+|,?\s+plus\s+|,?\s+as well as\s+|,\s+)/i)
  const out: string[] = [pieces[0] ?? '']
  for (let i = 1; i < pieces.length; i += 2) {
    const sep = pieces[i]!
    const next = pieces[i + 1] ?? ''
    if (sep.trim().startsWith(';') || (startsRequest(next) && hasObject(next))) out.push(next)
    else out[out.length - 1] += sep + next
  }
  return out
}

/** Items of a bullet list (one item a line) or an inline numbered enumeration; null when there is none. */
function enumeration(text: string): { preamble: string; items: string[] } | null {
  const lines = text.split(/\n/).map((l) => l.trim()).filter(Boolean)
  const bullet = /^(?:[-*•·‣▪]|\(?\d{1,2}[.)]|\(?[a-h]\))\s+/
  const firstBullet = lines.findIndex((l) => bullet.test(l))
  if (firstBullet >= 0 && lines.filter((l) => bullet.test(l)).length >= 2) {
    const items: string[] = []
    for (const l of lines.slice(firstBullet)) {
      if (bullet.test(l)) items.push(l.replace(bullet, ''))
      else if (items.length) items[items.length - 1] += ' ' + l
    }
    return { preamble: lines.slice(0, firstBullet).join(' '), items }
  }
  // Inline "1) ... 2) ..." / "1. ... 2. ...": markers must count up from 1 so "version 2." is not an item.
  const marker = /(?:^|[\s:;,])\(?(\d{1,2})[.)]\s+/g
  const found: Array<{ n: number; at: number; end: number }> = []
  for (let m; (m = marker.exec(text)); ) {
    const n = Number(m[1])
    if (n === found.length + 1) found.push({ n, at: m.index, end: m.index + m[0].length })
  }
  if (found.length < 2) return null
  const items = found.map((f, i) => text.slice(f.end, found[i + 1]?.at ?? text.length))
  return { preamble: text.slice(0, found[0]!.at), items }
}

/** Sub-tasks of one request, at most (the first ones): every part is compared with every span and every other part. */
const MAX_SUB_TASKS = 50

/** The parts of a request, in order. */
export function splitSubTasks(query: string): string[] {
  const text = query.replace(/\r/g, '').trim()
  if (!text) return []
  let parts: string[]
  const en = enumeration(text)
  if (en) {
    // "Please help me with the following:" introduces the list; a preamble that asks something itself is a task.
    const pre = sentences(en.preamble).filter((s) => !/:\s*$/.test(s) && isRequest(s))
    parts = [...pre, ...en.items]
  } else {
    const all = sentences(text)
    parts = all.filter(isRequest)
    if (parts.length === 0) parts = [text.replace(/\s+/g, ' ')]
  }
  const out: string[] = []
  for (const p of parts) for (const c of splitClauses(p.replace(/\s+/g, ' '))) {
    const t = clean(c)
    if (/[a-z0-9]/i.test(t) && !out.includes(t)) out.push(t)
  }
  return out.slice(0, MAX_SUB_TASKS)
}
