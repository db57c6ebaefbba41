/**
 * A claim that the agent did something ("I've booked you with Lea Brunner", "Done — I've sent the wire") is backed
 * only by a call that did it. A lookup's figures (the quote, the free slot) show what could be done, not that it was:
 * where the call of that action answered with a refusal, the claim is contradicted; where the trace made no call that
 * acts at all, nothing backs it.
 */
import { STATUS_KEYS } from './fact-keys.js'
import { toolWords } from './figures.js'
import { wordsMeet, type Claim } from './match.js'
import type { Statement } from './statements.js'
import { stem } from './text.js'

const IRREGULAR: Record<string, string> = { sent: 'send', paid: 'pay', made: 'make', put: 'put', set: 'set', bought: 'buy', sold: 'sell', took: 'take', gave: 'give', held: 'hold', done: 'do' }
const DONE = new RegExp(
  `\\b(?:I|we)(?:'ve| have)?\\s+(?:just |now |also |already |successfully |gone ahead and )?([a-z]+ed|${Object.keys(IRREGULAR).join('|')})\\b`,
  'gi',
)
/** Verbs of finding out, not of acting: "I've checked your order" reports a lookup. */
const LOOKED = /^(?:checked|double-checked|looked|searched|reviewed|compared|calculated|verified|pulled|fetched|listed|converted|noticed|confirmed|estimated|worked|noted|summari[sz]ed|highlighted|rounded|used|assumed|based|included|attached|found|tried|attempted|asked|need|needed)$/i
/** Tools that find out rather than act, by their first word. */
const LOOKUP_TOOL = /^(?:get|list|search|find|lookup|look|check|fetch|read|query|quote|calc|calculate|estimate|compare|convert|describe|show|view|retrieve|browse|inspect|status|validate|verify|preview)$/i
const REFUSED = /\b(?:reject\w*|declin\w*|fail\w*|error|denied|refus\w*|not[_ ]allowed|not[_ ]permitted|blocked|insufficient\w*|forbidden|unauthori[sz]ed|exceed\w*|invalid)\b/i

/**
 * The state an action leaves, said of the user or the thing ("You're booked into the 7:15 am class", "your place has
 * been reserved"): a claim that the action was done, without saying who did it.
 */
const STATE = /\b(?:you(?:'re| are)|you've been|you have been|(?:has|have) been)\s+(?:now |all |also |already |successfully )?(booked|registered|enrolled|reserved|transferred|renewed|refunded|cancell?ed|rebooked|upgraded)\b/gi

/** The actions a claim says the agent did, as stems ("booked" → book, "sent" → send). */
function actionsDone(c: Claim): string[] {
  return [...c.text.matchAll(DONE)].map((m) => m[1]!.toLowerCase()).filter((v) => !LOOKED.test(v)).map((v) => stem(IRREGULAR[v] ?? v))
}
const statesDone = (c: Claim): string[] => [...c.text.matchAll(STATE)].map((m) => stem(m[1]!.toLowerCase()))

const toolOf = (s: Statement) => [...toolWords(s.evidence).keys()]
const acts = (s: Statement) => {
  const first = (s.evidence.source ?? '').replace(/^tool:/, '').split(/[_.\-\s]+/)[0] ?? ''
  return s.evidence.kind === 'tool_result' && first !== '' && !LOOKUP_TOOL.test(first)
}
/** A result's own status says the call was refused ("status": "rejected", "success": false). */
const refused = (s: Statement) =>
  (s.key !== undefined && STATUS_KEYS.test(s.key) && REFUSED.test(s.text.slice(s.text.lastIndexOf(':') + 1))) || (s.boolean === true && s.flag === false && /^(?:success|ok|accepted|approved|completed)$/i.test(s.key ?? ''))

export type ActionVerdict = { verdict: 'contradicted'; s: Statement } | { verdict: 'unbacked' }

export function actionVerdict(c: Claim, results: Statement[]): ActionVerdict | null {
  const said = actionsDone(c)
  // (A state may be a lookup's report, "you're booked" read off a booking record: only a refusal of its action decides.)
  const done = said.length ? said : statesDone(c)
  if (!done.length) return null
  const calls = results.filter((s) => s.evidence.kind === 'tool_result' && toolOf(s).some((t) => done.some((v) => wordsMeet(v, t))))
  // Every call of the action refused (one of two bookings declined says nothing of the other).
  const refusals = calls.filter(refused)
  if (refusals.length && calls.every((s) => refusals.some((r) => r.evidence === s.evidence))) return { verdict: 'contradicted', s: refusals[0]! }
  if (said.length && !calls.length && !results.some(acts)) return { verdict: 'unbacked' }
  return null
}
