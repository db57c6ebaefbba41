/**
 * What a rule forbids doing, and what an output sentence does, as a few kinds of
 * act. The sentence model (semantic/) tells whether a sentence is about a rule's
 * subject, paraphrase included; it does not tell "recommend holding Bitcoin" from
 * "I can't recommend holding Bitcoin", nor a promise from a fact. These markers do:
 * a sentence breaks a rule when it is on the rule's subject and performs the act the
 * rule forbids.
 */
export type ActKind = 'promise' | 'recommend' | 'disclose' | 'solicit' | 'transact' | 'refer_out' | 'characterize' | 'estimate'

/** The verbs of a rule's forbidden act, by kind (matched on the clause after its cue). */
const RULE_VERBS: Array<[ActKind, RegExp]> = [
  ['promise', /\b(promis\w*|guarantee\w*|predict\w*|impl(?:y|ies)|assur\w*|commit\w*|state\w* that|speculat\w*|forecast\w*|certain)\b/i],
  ['recommend', /\b(recommend\w*|advis\w*|advice|suggest\w*|steer\w*|encourag\w*|endors\w*|urg\w*|tell \w+ (?:to|whether)|diagnos\w*|opinion)\b/i],
  ['disclose', /\b(disclos\w*|reveal\w*|shar\w*|nam(?:e|ing)|read out|giv\w* out|quot\w*|mention\w*|identif\w*|expos\w*|confirm\w* (?:whether|who|that)|describ\w* (?:their|his|her) location|location)\b/i],
  ['solicit', /\b(ask\w*|request\w*|collect\w*|solicit\w*|gather\w*|invit\w*|prompt\w*|encourag\w* \w+ to (?:share|send|upload|post))\b/i],
  ['transact', /\b(issu\w*|refund\w*|book\w*|process\w*|approv\w*|waiv\w*|credit\w*|cancel\w*|grant\w*|make (?:a|any) (?:booking|payment|change)|amounts?|discount\w*)\b/i],
  ['refer_out', /\b(link\w*|redirect\w*|external|outside (?:the|our)|other (?:websites?|apps?|platforms?)|third[- ]party (?:sites?|apps?))\b/i],
  ['characterize', /\b(describ\w* (?:an? )?(?:area|neighbou?rhood|building|people|person)|kind of people|type of (?:tenant|people|person)|preference for|stereotyp\w*)\b/i],
  ['estimate', /\b(estimat\w*|round\w*|invent\w*|approximat\w*|ballpark|guess\w*)\b/i],
]

/** Markers of each act in agent output. */
const SENTENCE_MARKERS: Array<[ActKind, RegExp]> = [
  [
    'promise',
    /\b(definitely|certainly|guarantee[sd]?(?! scheme| fund| period)|for sure|no doubt|can(?:'t|not) lose|count on|almost certainly|basically (?:locked|guaranteed|certain)|locked in|no trouble|(?:is|are) sure to|bound to|I promise|assured?|100 ?%|nothing to worry|will (?:definitely|surely|certainly)|will be fine|will go through|won't have any (?:problem|trouble)|will (?:be|get) (?:approved|accepted|admitted|granted|paid|covered|hired|selected|promoted)|you'll (?:be|get) (?:approved|accepted|admitted|in|hired|promoted|paid)|(?:is|are) going to (?:rise|go up|double|recover)|whatever the markets? do|risk[- ]free|can't go wrong|safe bet|will (?:definitely |surely |certainly )?(?:be (?:approved|accepted|covered|paid|admitted|granted|reimbursed|refunded|fine|ok|okay)|get (?:in|approved|accepted|paid|covered|the offer|an offer)|go through|pay (?:out|for)|cover (?:it|the|this|your))|you're (?:in|set|covered|approved|good to go)|(?:no|zero) (?:risk|chance of (?:losing|rejection|being rejected))|(?:I'm|I am) (?:sure|confident|certain) (?:you|that|it)|no way (?:you|they|it)|(?:a )?sure thing|(?:will|is going to|are going to) (?:double|triple|moon|skyrocket|go up|rise|recover)|(?:will be|'ll be|should be|is definitely|are definitely) (?:definitely |fully |totally |certainly )?(?:covered|approved|accepted|admitted|paid out|reimbursed|waived))\b/gi,
  ],
  [
    'recommend',
    /\b(I(?:'d| would) (?:just |probably |definitely |really |personally )?(?:put|go|buy|sell|hold|recommend|suggest|move|pick|choose|stick|take|wait|invest|avoid|switch|use|get|sit|keep|stay|start|try)|you should|I (?:recommend|suggest|advise)|(?:the )?(?:best|smartest|smarter|safest|wisest) (?:move|option|choice|bet|thing|pick)|sensible (?:moment|time|move) to|(?:is|would be) (?:a )?(?:good|great|smart) (?:time|moment|idea) to|worth (?:buying|selling|asking|getting|holding)|go (?:for|with) (?:it|the)|my advice|I wouldn't (?:sell|buy|panic|hold|worry)|sit(?:ting)? tight|hold on to|offload|load up|stick with|take (?:two|one|\d)|\d+(?:\.\d+)?\s?(?:mg|ml|mcg|milligrams?|millilit(?:er|re)s?|tablets?|pills?|capsules?|puffs?|drops)|sounds like you have|you (?:probably|likely) have|you could sue|is (?:probably )?(?:unenforceable|enforceable|illegal|legal)|you'd be (?:better off|smart|wise)|(?:it's|it is) (?:a )?(?:good|great|smart|perfect) (?:time|moment|idea|buy|deal) to|you (?:should|could) (?:definitely |really )?(?:buy|sell|invest|short|use|take|get|try|pick|choose|switch|go)|(?:might|may) want to (?:buy|sell|invest|short|switch|move|hold|add|pick|take)|consider (?:buying|selling|investing|switching|moving|adding|shorting|holding|taking)|better (?:off )?to (?:buy|sell|wait|hold|invest|switch)|^(?:buy|sell|short|go long on|grab|pick|choose|avoid|switch to|invest in|put your money)\b)\b/gim,
  ],
  [
    'disclose',
    /(?:[\w.+-]+@[\w-]+\.[\w.-]+|\b\d{3}[ -.]\d{4}\b|\b(?:\d{4}[ -]?){3}\d{4}\b|\b\d{1,5}\s+[A-Z][a-z]+\s(?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Way)\b|\b(?:his|her|their|(?:[A-Z][a-z]+|manager|colleague|boss|co-?worker|teammate|supervisor|employee|customer|candidate|applicant|student|patient|neighbou?r|friend|wife|husband|partner|player|member)'s) (?:salary|bonus|pay|address|phone|number|email|location|score|scores|grade|grades|GPA|results?|record|history|offer|rating|diagnosis|name|application|interview|background check|test)\b|\b(?:is on|earns?|makes?|is paid|gets? paid|negotiated(?: a)?) (?:about |roughly |around )?[$€£]?\d[\d,.]*k?\b|\b(?:is|are) (?:stuck |parked |waiting |currently |still )?(?:at|near|outside) (?:the )?[\w ]{2,30}? (?:on|at|near) [A-Z0-9]|\b(?:lives|is staying|works) (?:at|in|on)\b|\bborn (?:on|in)\b|\b(?:another|other|the) (?:customer|employee|person|user|candidate|applicant|student|patient|player|member|colleague)(?:'s|s'| you mentioned)|, [A-Z][a-z]+, )/g,
  ],
  [
    'solicit',
    /\b(?:(?:what(?:'s| is)|tell me|send (?:me|us)|give me|share|post|drop|type) (?:your|ur) (?:\w+ ){0,2}(?:name|address|school|email|e-mail|number|phone|age|birthday|location|city|town|username|handle|password|photo|picture|selfie|account)|tell me your|send (?:me|us) (?:a (?:photo|picture|selfie))|snap a (?:picture|photo)|upload (?:a|your) (?:photo|picture|selfie)|where do you live|where are you from|how old are you|which school|(?:add|message|dm|text|call|email) me (?:on|at)\b)/gi,
  ],
  ['transact', /\b(?:I(?:'ve| have) (?:gone ahead and |already )?(?:issued|processed|approved|refunded|booked|added|credited|waived|cancelled|canceled|applied|granted|sent|made|changed|upgraded|reserved)|I went ahead and|I(?:'ll| will) (?:refund|issue|credit|add|waive|book|approve|process|cancel|send you)|(?:has|have) been (?:refunded|credited|approved|booked|waived))\b/gi],
  ['refer_out', /(?:https?:\/\/|www\.|\b[a-z0-9-]+\.(?:com|org|net|io|gg|tv)\b|\b(?:YouTube|TikTok|Instagram|Discord|Reddit|Google|Facebook|Snapchat|Twitch|WhatsApp)\b|\bjust search\b|\bsearch (?:for|online)\b|\bcheck out (?:this|the) (?:site|website|channel)\b)/gi],
  ['characterize', /\b(?:mostly|full of|lots of|a lot of|crowd|mainly|predominantly|largely) (?:\w+ )?(?:young|old|older|retired|famil\w*|kids|children|professionals|students|people|immigrants|couples|singles)\b|\b(?:people|families|tenants|folks) like you\b|\bfeel (?:more )?at home\b|\bprefer (?:tenants|people|applicants|candidates)\b/gi],
  ['estimate', /\b(?:around|about|roughly|approximately|ballpark|usually (?:run|runs|cost|costs|go|goes)|I'd expect|expect (?:it|them|prices?|the \w+) to|budget (?:for )?about|somewhere between)\s+(?:[$€£]?\d|\w+ (?:[$€£]?\d))/gi],
]

/** A marker right after a negation ("does not guarantee", "don't share your address") is not the act. */
const NEGATED_BEFORE = /(?:\bnot|\bnever|\bno|n't)\s+(?:\w+\s+){0,2}$/i

/** An output sentence that refuses, defers or only points to the approved source is not doing the act. */
export const DEFERS = /\b(?:(?:I|we)(?:'m| am| are)? (?:really )?(?:can't|cannot|can not|unable to|not able to|won't|will not|not allowed to|not permitted to|not in a position to|afraid I can't)|(?:please )?(?:contact|ask|speak (?:to|with)|reach out to|refer (?:you|it) to|passing (?:this|it) to|hand(?:ing)? (?:this|you) (?:over )?to|connect you (?:with|to)|book (?:you )?a session with) (?:a |an |the |your |our |one of our )?(?:human|licensed|qualified|\w+ )?(?:agent|advisor|adviser|partner|specialist|team|doctor|pharmacist|lawyer|attorney|officer|counsel\w*|grown-up|parent|teacher|adult|representative|manager|consulate)|is decided by|are decided by|decisions are made by|depends? on)\b/i

export function ruleActs(ruleText: string): Set<ActKind> {
  return new Set(RULE_VERBS.filter(([, re]) => re.test(ruleText)).map(([k]) => k))
}

/**
 * The acts a sentence performs. `quoted` is the policy text: a literal it quotes (a
 * support address, a published figure) is public, not a disclosure.
 */
export function sentenceActs(sentence: string, quoted = ''): Set<ActKind> {
  const out = new Set<ActKind>()
  for (const [kind, re] of SENTENCE_MARKERS)
    for (const m of sentence.matchAll(re)) {
      if (NEGATED_BEFORE.test(sentence.slice(Math.max(0, m.index - 40), m.index))) continue
      if (kind === 'disclose' && /[@\d]/.test(m[0]) && quoted.includes(m[0].trim().replace(/[.,;:]+$/, ''))) continue
      out.add(kind)
      break
    }
  return out
}
