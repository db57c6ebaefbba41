/**
 * What a rule forbids doing, as a few kinds of act, read from the rule's verbs. The
 * sentence model (semantic/) tells whether a sentence is about a rule's subject; it
 * barely tells "recommend holding Bitcoin" from "I can't recommend holding Bitcoin",
 * nor a promise from a fact. So the rule's verbs give the kinds of act it forbids
 * (this file), the sentence's grammar gives the kinds it performs (cues.ts), and a
 * sentence breaks a rule when it is on the rule's subject and the kinds meet.
 */
export type ActKind = 'promise' | 'recommend' | 'disclose' | 'solicit' | 'transact' | 'refer_out' | 'characterize' | 'estimate' | 'disparage' | 'assert' | 'produce'

/**
 * The verbs policies use for a forbidden act, by kind, matched on one verb slot: the
 * first word of the act (after adverbs) and each word right after a coordinator
 * ("quote, estimate or imply", "ask about, or invite"). Words of the object ("will be
 * invited", "a credit application") are not verbs of the act.
 */
const VERBS: Array<[ActKind, RegExp]> = [
  ['promise', /^(?:promis|guarante|predict|forecast|assur|commit|speculat|reassur|project|pledg|warrant|threaten|warn)/],
  ['recommend', /^(?:recommend|advis|advice|suggest|steer|encourag|endors|urg|push|pressur|nudg|diagnos|prescrib|counsel|coach|instruct|help|tell|walk|discourag|persuad|talk|incentivi|motivat|coax|entic|opinion|propos|explain\w* how|show\w* how|teach)/],
  ['disclose', /^(?:disclos|reveal|shar|read out|giv\w* out|expos|leak|identif|mention|nam(?:e|ing)|pass on|forward|publish|display|confirm|divulg|releas|discuss)/],
  ['solicit', /^(?:ask|request|collect|solicit|gather|invit|prompt|seek|probe|inquir|enquir|demand|obtain)/],
  ['transact', /^(?:issu|refund|book|process|approv|waiv|credit|cancel|grant|authori[sz]|reimburs|compensat|offer|accept|modif|upgrad|extend|revers|adjust|appl(?:y|ies)|chang|reschedul|schedul|sign|enrol|activat|deactivat|transfer|execut|place|mak(?:e|ing) (?:a|any) (?:booking|payment|change|exception))/],
  ['refer_out', /^(?:link|redirect|send|point|refer|direct|recommend)/],
  ['characterize', /^(?:describ|characteri[sz]|stereotyp|profil|label|categori[sz]|classif|steer)/],
  ['estimate', /^(?:estimat|round|invent|approximat|ballpark|guess|quot|calculat|comput|fabricat|mak(?:e|ing) up|hint)/],
  ['disparage', /^(?:disparag|critici[sz]|badmouth|insult|mock|belittl|denigrat|blam|assign|shame|ridicul|speak negatively|talk down|judg|attack|demean|trash|slam|accus|fault)/],
  ['produce', /^(?:writ|draft|complet|do (?:\w+ )?(?:homework|assignments?|coursework)|solv|answer|ghostwrit|fill (?:in|out))/],
  ['assert', /^(?:say|stat(?:e|es|ing)\b|claim|impl(?:y|ies)|indicat|hint|tell|suggest|assert|describ|characteri[sz]|label|call|portray|represent|mak(?:e|ing) (?:statements?|claims?|representations?|comments?|assumptions?)|comment|discuss|express|confirm|declar|pretend|present|frame|assum|assign|attribut|speculat|imply)/],
]

/**
 * Nouns that name an act, for an act whose verb says nothing ("give dosage advice",
 * "no personalised tax advice", "make a guarantee").
 */
const NOUNS: Array<[ActKind, RegExp]> = [
  ['promise', /^(?:guarantee|promise|prediction|forecast|assurance|commitment)s?$/],
  ['recommend', /^(?:advice|recommendations?|opinions?|diagnos[ie]s|suggestions?|tips?|instructions?|treatment|prescriptions?|dosage|doses?)$/],
  ['disclose', /^(?:details|information|data|records?|history|location|whereabouts|identity|identities|addresses|address|codes?|passwords?|balances?|usage|grades?|scores?|results?|status)$/],
  ['transact', /^(?:refunds?|credits?|discounts?|bookings?|upgrades?|waivers?|compensation|exceptions?|reimbursements?|payments?|payouts?)$/],
  ['refer_out', /^(?:links?|urls?|websites?|sites?|apps?|platforms?)$/],
  ['estimate', /^(?:estimates?|quotes?|prices?|pricing|fees?|figures?|amounts?|rates?|costs?|times?|dates?)$/],
  ['produce', /^(?:essays?|assignments?|homework|coursework|answers?|solutions?|code)$/],
]

/** Object words that make a sending verb a sending elsewhere. */
const OUTSIDE = /\b(?:external|outside|off-?platform|third[- ]party|unofficial|other (?:websites?|sites?|apps?|platforms?|services?|providers?|companies|pharmacies|stores|shops))\b/i
/** Object words about people, for describing verbs ("describe areas by who lives there"). */
const PEOPLE = /\b(?:people|person|persons|who lives?|tenants?|residents?|neighbou?rhoods?|areas?|groups?|race|religion|national origin|ethnic\w*|gender|age|disabilit\w*|protected characteristics?)\b/i

/** Verbs that take their kind from their object ("give dosage advice", "make a guarantee"). */
const GENERIC = /^(?:giv|provid|offer|mak|do|engag|us|includ|produc|creat|writ|post|put|hav|be|get)/
const ADVERB = /^(?!(?:imply|apply|supply|reply|rely|comply|multiply|bully)$)(?:\w+ly|ever|also|otherwise|either)$/i
const COORDINATED = /(?:^|,\s*(?:or\s+|and\s+|nor\s+)?|\s(?:or|and|nor|\/)\s+)([a-z][a-z-]*(?:\s+(?:a|any|up|out|down|negatively|statements?|claims?|comments?|representations?|assumptions?|other|external|third)\b)?)/gi

/** The verbs of a forbidden act: its first verb and each coordinated one ("quote, estimate or imply"). */
export function actVerbs(act: string): string[] {
  const words = act.toLowerCase().split(/\s+/)
  let i = 0
  while (i < words.length - 1 && ADVERB.test(words[i]!)) i++
  const out = new Set<string>()
  // The first verb with the word after it ("make statements", "imply an"), unless a list goes on ("quote, estimate").
  const first = /[,;:]$/.test(words[i] ?? '') ? words[i]!.slice(0, -1) : words.slice(i, i + 2).join(' ')
  if (first) out.add(first)
  for (const m of act.toLowerCase().matchAll(COORDINATED)) if (m.index > 0) out.add(m[1]!)
  return [...out]
}

const PARTICLE = /^(?:for|about|to|at|on|in|up|out|with|into|of|from|them|him|her|it|anyone|someone)$/i
const PREPOSITION = /^(?:about|for|with|on|to|of|from|regarding|concerning|into)$/i
const DETERMINER = /^(?:a|an|the|any|their|its|his|her|our|your|this|that|these|those|some|each|every)$/i
/** A word that starts a coordinated verb phrase ("..., share their name"); not an auxiliary ("sell out or be rescheduled"). */
const isVerb = (word: string) => !/^(?:be|been|being|have|has|get|got)$/.test(word) && (GENERIC.test(word) || VERBS.some(([, re]) => re.test(word)))
const LIST_SEPARATOR = /\s*,\s*(?:or\s+|and\s+|nor\s+)?|\s+(?:or|and|nor)\s+/
/** Items of an enumeration longer than this many words end it. */
const ITEM_WORDS = 6
const MAX_PARTS = 12

/**
 * A forbidden act in the pieces the sentence model compares a sentence with: each
 * coordinated verb phrase ("blame a courier, share their name or phone number, or
 * describe their location") with the object of the last one when it has none of its
 * own ("quote, estimate or imply an APR"), and each item of an enumeration with the
 * words before it ("ask about age", "ask about family or marital status", ...). A
 * sentence about one item is closer to that piece than to the whole list. The act
 * itself comes first.
 */
export function actParts(act: string): string[] {
  const tokens = act.split(new RegExp(`(${LIST_SEPARATOR.source})`, 'i'))
  const phrases: string[] = []
  let cur = tokens[0] ?? ''
  for (let i = 1; i + 1 < tokens.length; i += 2) {
    const next = tokens[i + 1]!
    const word = next.trim().split(/\s+/)[0]!.toLowerCase()
    // "an earlier or guaranteed time": a participle after "or" describes the object.
    if (isVerb(word) && !/ed$/.test(word)) {
      phrases.push(cur)
      cur = next
    } else cur += tokens[i]! + next
  }
  phrases.push(cur)
  const last = phrases[phrases.length - 1]!.trim().split(/\s+/)
  const sharedObject = last.slice(1).join(' ')
  const out = new Set<string>([act])
  for (const phrase of phrases) {
    const words = phrase.trim().split(/\s+/)
    const objectless = words.slice(1).every((w) => PARTICLE.test(w))
    const p = objectless && sharedObject ? `${phrase.trim()} ${sharedObject}` : phrase.trim()
    out.add(p)
    const segments = p.split(LIST_SEPARATOR)
    if (segments.length < 2) continue
    const head = segments[0]!.split(/\s+/)
    // "promise an earlier or guaranteed time": the items describe one noun, not a list of objects.
    if (DETERMINER.test(head[head.length - 2] ?? '')) continue
    // The items share the words up to the last preposition ("ask candidates about | age, family or
    // marital status"), else the verb when they are of several words ("share | alarm codes or other
    // customers' addresses"), else all but the last word ("recommend | buying, selling or holding").
    const prep = head.findLastIndex((w, k) => k > 0 && k < head.length - 1 && PREPOSITION.test(w))
    const cut = prep > 0 ? prep + 1 : head.length > 2 && segments.slice(1).some((x) => x.split(/\s+/).length > 1) ? 1 : head.length - 1
    const [prefix, first] = [head.slice(0, cut).join(' '), head.slice(cut).join(' ')]
    for (const item of [first, ...segments.slice(1)]) {
      if (item.split(/\s+/).length > ITEM_WORDS) continue
      out.add(`${prefix} ${item}`.trim())
    }
  }
  return [...out].filter((x) => x.length > 2).slice(0, MAX_PARTS)
}

// Only verbs that take a listener have words before their "that" ("tell customers that ..."); after another verb's object, "that" starts a relative clause ("promise delivery dates that the tracking page does not show").
const SAYING = /^(?:\w+ly\s+)?(?:(?:tell|assure|advise|inform|remind|warn)\w*\s+(?:(?:\w+|\w+'s?)\s+){0,3}?|(?:say|state|suggest|imply|claim|confirm|indicate|promise|guarantee)\w*\s+)(?:that|whether)\s+(.{8,})$/i

/**
 * What a rule forbids saying, when it forbids saying something ("tell customers that
 * discoloured water is safe to drink" → "discoloured water is safe to drink"): a
 * sentence that states it breaks the rule (judge.ts, PROPOSITION_TOPIC).
 */
export function propositionOf(phrase: string): string | null {
  const m = SAYING.exec(phrase.trim())
  const p = m?.[1]!.replace(/[\s.;:]+$/, '')
  // "advise them whether to buy it" is advice, not a statement; a fragment ("they will") states nothing.
  return p && !/^to\s/i.test(p) && p.split(/\s+/).length >= 3 ? p : null
}

/**
 * The kinds of act a rule forbids, from the verbs of its act; a verb followed by
 * "that" states something ("suggest that the other driver was at fault"). For a
 * restriction (its act is the whole clause) or when no verb slot is known, every word
 * of the act is read. Empty: the sentence model decides (index.ts, ACT_DESCRIPTIONS).
 */
export function ruleActs(act: string, restriction = false): Set<ActKind> {
  const kinds = new Set<ActKind>()
  const read = (slots: string[]) => {
    for (const slot of slots)
      for (const [kind, re] of VERBS) {
        if (!re.test(slot)) continue
        if (kind === 'refer_out' && !/^(?:link|redirect)/.test(slot) && !OUTSIDE.test(act)) continue
        if (kind === 'characterize' && !/^(?:stereotyp|profil)/.test(slot) && !PEOPLE.test(act)) continue
        // "Tell customers that ..." states something; "tell them to ..." advises.
        if (kind === 'recommend' && /^tell/.test(slot) && propositionOf(act) !== null) continue
        kinds.add(kind)
      }
  }
  const verbs = actVerbs(act)
  read(verbs)
  if (/^\s*(?:\w+ly\s+)?\w+(?:\s+or\s+\w+)?\s+that\b/i.test(act)) kinds.add('assert')
  const words = act.toLowerCase().split(/[\s,;:()]+/)
  // A restriction's verb may be anywhere ("Fees may be quoted only as listed"); any clause states something: no 'assert' from it.
  if (restriction) {
    const stated = kinds.has('assert')
    read(words)
    if (!stated) kinds.delete('assert')
  }
  // The object names the act when the verb does not ("give dosage advice", "a refund").
  if (restriction || kinds.size === 0 || verbs.some((v) => GENERIC.test(v))) for (const [kind, re] of NOUNS) if (words.some((w) => re.test(w))) kinds.add(kind)
  if (/\bguarantee\w*\b|\bpredict\w*|\bcertain\b|\bwill (?:be|get|receive)\b/i.test(act)) kinds.add('promise')
  return kinds
}

/**
 * Canonical descriptions of each kind of act, for a rule whose verbs the lists above
 * do not know: its act's first words are compared with these by the sentence model
 * and take the nearest kind at cosine ACT_KIND_FLOOR or more.
 */
export const ACT_DESCRIPTIONS: Array<[ActKind, string]> = [
  ['promise', 'promise, guarantee or predict an outcome'],
  ['recommend', 'recommend, advise or urge someone to do something'],
  ['disclose', "disclose or reveal another person's private information"],
  ['solicit', 'ask someone for their personal information'],
  ['transact', 'issue a refund, credit, booking or payment'],
  ['refer_out', 'send someone to an outside website or app'],
  ['characterize', 'describe people by their group or background'],
  ['estimate', 'estimate, quote or state a price or figure'],
  ['disparage', 'criticise, insult or blame someone'],
  ['assert', 'say or claim that something is true'],
  ['produce', "write or complete someone's work for them"],
]
export const ACT_KIND_FLOOR = 0.3
