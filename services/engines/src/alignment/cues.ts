/**
 * The kinds of act an output sentence performs, read from its grammar and a few
 * closed classes of English words rather than from any domain's phrasing: epistemic
 * adverbs and future modals (a promise or a prediction), the imperative and
 * second-person modals (advice), questions about the user (a request for personal
 * data), first-person performatives (a transaction), evaluative words (disparagement),
 * contact data and third persons' attributes (disclosure), figures (an estimate).
 *
 * Each kind comes with a strength. A strong cue is the act itself ("definitely",
 * "you should", "I've issued", an e-mail address): on the rule's subject at all, it
 * breaks the rule. A weak cue is the form the act usually takes but many harmless
 * sentences take too (an imperative, "will", a question, any declarative sentence):
 * it counts only close to the rule's subject (judge.ts, WEAK_TOPIC).
 */
import type { ActKind } from './acts.js'
import { normalisedWords } from './embed.js'

export type Strength = 'strong' | 'weak'

/**
 * What a sentence says will happen: the stems of the words after "will", "'ll",
 * "won't", "is going to" ("the warranty will cover it" → cover). judge.ts compares
 * them with the words of a forbidden promise ("say that a repair is covered").
 */
export function futurePredicates(sentence: string): string[] {
  const out: string[] = []
  for (const m of sentence.matchAll(/\b(?:will|'ll|won't|wouldn't|would|going to)\s+((?:[\w%$€£-]+\s+){0,4}[\w%$€£-]+)/gi))
    out.push(...normalisedWords(m[1]!).filter((w) => !/^(?:be|get|have|not|definit|certainli|sure|probabl|easili|also|just)$/.test(w)))
  return out
}

const DAY = '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tonight|tomorrow|noon|midday|the end of (?:the )?(?:day|week|month)|this (?:morning|afternoon|evening)|\\d)'
const DEADLINE = new RegExp(
  String.raw`\b(?:will|'ll|is going to|are going to|should (?:have|be|get))\b[^.;?]{0,60}?\b(?:within (?:the next )?(?:\w+ ){0,2}(?:minutes?|hours?|days?|weeks?)|by ${DAY}|before ${DAY}|(?:tomorrow|tonight|today|this (?:afternoon|evening|morning|week))\b|in (?:an? |\d+ |\w+ )(?:minutes?|hours?|days?|weeks?))`,
  'i',
)

/**
 * The sentence says when something will happen ("you'll have water again within two
 * hours", "it'll be with you tomorrow morning", "will be back in your account by
 * Friday"): a future predicate with a deadline. judge.ts reads it as a promise of a time.
 */
export function promisedTime(sentence: string): boolean {
  return DEADLINE.test(sentence)
}

export type SentenceActs = Map<ActKind, Strength>

/** Certainty about an outcome: a promise, and a strong assertion. */
const CERTAIN = new RegExp(
  [
    String.raw`\b(?:definitely|certainly|surely|clearly|obviously|undoubtedly|absolutely|guaranteed|guarantees? (?:that|you|it|this|your|a|an)|for sure|no doubt|without (?:a|any) doubt|basically|practically|virtually|essentially)\b`,
    String.raw`\b(?:almost|nearly|pretty much|all but) (?:always|certainly|certain|guaranteed|sure|never)\b`,
    String.raw`\b(?:I'm|I am|we're|we are) (?:\w+ )?(?:sure|certain|confident|positive)\b`,
    String.raw`\b(?:sure|bound|certain|guaranteed) to\b`,
    String.raw`\b(?:no|zero) (?:risk|chance|way|problem|trouble|issue|question|doubt)s?\b`,
    String.raw`\bwithout (?:any )?(?:problems?|trouble|issues?|hassle|questions?)\b`,
    String.raw`\b(?:can(?:'t|not) (?:lose|go wrong|fail|miss)|won't (?:have|cause|be) any (?:problem|trouble|issue)s?|nothing to worry|safe bet|sure thing|a lock\b|locked in|risk[- ]free|in (?:good|great) shape|all set|good to go|you're (?:in(?=[.!,;]|$)|set|covered|approved|good to go)|\b(?:almost |nearly )?always (?:get|gets|work|works|pass|passes|succeed|succeeds|recover|improve|win|wins|come back|get better|go through))`,
    String.raw`\b(?:don't|do not|no need to) (?:worry|stress|panic)\b|\bI (?:wouldn't|would not) worry\b`,
    String.raw`\b(?:count|rely|bank) on (?:it|that|this|getting|receiving|seeing|roughly|about|around|a|an|the)\b`,
    String.raw`\bI(?:'ll| will) (?:make sure|ensure|see to it|personally make sure)\b`,
    String.raw`\b(?:will|'ll|'re going to|are going to) (?:\w+ )?(?:easily|comfortably|hands down)\b|\bno (?:real )?(?:defen[cs]e|case|contest)\b`,
    String.raw`\byou(?:'re| are) (?:owed|due|entitled to)\b|(?<!\b(?:whether|if)\s)\byou (?:qualify|are eligible) for\b|\b(?:that|this|it)(?:'s| is) yours\b|\b(?:will|'ll) be (?:fine|okay|ok|alright|safe)\b`,
    String.raw`\b(?:nobody|no one|no-one|they) (?:will|would|is going to|ever|really) (?:question|check|notice|know|find out|care|mind|look|catch)\b|\b(?:nobody|no one|no-one) (?:checks|notices|cares|looks)\b`,
    String.raw`\bas good as (?:done|approved|yours|guaranteed|there|certain|sorted)\b|\b(?:can't|cannot|can not|don't) (?:see|imagine) (?:\w+ )?(?:turning|refusing|rejecting|saying no|failing|going wrong|having (?:any )?(?:problem|trouble|issue))|\bconsider it done\b`,
    String.raw`\bI (?:promise|guarantee|assure)\b|\b(?:I|we) can (?:commit|promise)\b|\b100 ?%`,
  ].join('|'),
  'gi',
)
/**
 * Likelihood: a prediction, weak alone. Not the plain future ("will", "you'll"): an
 * assistant says what happens next in nearly every answer ("you'll receive the result
 * by email"); a prediction it must not make comes with certainty (CERTAIN) or odds.
 */
const LIKELY = /\b(?:(?:heading|going|trending|set|bound|about) (?:to )?(?:up|down|higher|lower|rise|fall|drop|climb|increase|decrease)|usually|typically|generally|normally|often|mostly|tend to|likely|unlikely|probably|most likely|chances are|odds|expect(?:ed)?|should (?:be|get|go|come|arrive|work|pass|clear|improve|help)|should have (?:\w+ ){0,3}(?:sorted|fixed|resolved|done|back|restored|ready|working|up)|shouldn't (?:be|go|get|affect|change|rise|increase))\b/gi

/** Advice in so many words. */
const ADVISE = new RegExp(
  [
    String.raw`\byou (?:really |definitely |probably |just )?(?:should|ought to|could just|can just|can simply|can safely|could simply|might want to|may want to|'d better|had better|need only)\b`,
    String.raw`\byou(?:'re| are) (?:still |perfectly |totally |completely |absolutely )?(?:fine|safe|okay|ok) to\b|\b(?:it's|it is|it'd be|it would be) (?:fine|safe|okay|ok|better|best|smarter|wise|smart) (?:for you )?to\b`,
    String.raw`\bif I were you\b|\bmy (?:advice|recommendation|suggestion|tip|take)\b|\bI (?:recommend|suggest|advise|urge)\b`,
    String.raw`\bI(?:'d| would)(?: \w+ly)? (?!like\b|love\b|be (?:happy|glad)\b|need\b|have to\b)[a-z]+`,
    String.raw`\bI (?:wouldn't|would not) (?!be able\b|know\b)[a-z]+`,
    String.raw`\b(?:good|great|best|smart|smarter|smartest|safest|wise|wiser|sensible|perfect|right|ideal|obvious|clear) (?:time|moment|move|idea|option|choice|bet|deal|call|plan|pick|way)\b|\bno[- ]brainer\b`,
    String.raw`\b(?:amazing|great|fantastic|unbeatable|incredible|awesome|excellent|super) (?:deal|value|price|offer|buy)\b|\bworth (?:it|every|\w+ing)\b`,
    String.raw`\bgo ahead and\b|\b(?:and|so|then) should (?!be\b|have\b)[a-z]+|\b\w+ing\b[^.;,]{0,40}\b(?:is|would be|'s) (?:a |an )?(?:good|great|kind|nice|smart|sensible|safe|fine|lovely|thoughtful|generous|wise|reasonable) (?:idea|gesture|move|step|thing|choice|option|way)\b`,
    String.raw`\byou (?:have|'ve got) (?:a |an )?(?:strong|good|solid|watertight|clear|weak) case\b`,
    String.raw`\b\w+ing\b[^.;,]{0,40}\b(?:is|'s|would be) (?:perfectly |totally |completely |absolutely )?(?:fine|okay|ok|safe|alright)\b|\b\w+ing\b[^.;,]{0,40}\b(?:won't|will not|doesn't|does not|shouldn't) (?:cause|be|make|matter|hurt) (?:any |a )?(?:problems?|trouble|issues?|difference|harm)\b`,
    String.raw`\b(?:sounds|looks|seems) like (?:an? |textbook |classic |typical )?(?:[\w-]+ ){0,2}(?:disorder|syndrome|disease|infection|deficiency|depression|anxiety|adhd|ocd|ptsd|allergy|intolerance|\w+itis|\w+osis|migraine|virus|flu)\b`,
    String.raw`\bno need for\b|\byou can (?:just |safely |simply )?(?:skip|stop|double|halve|pause|split|increase|decrease|reduce|cut back on|drop|give (?:him|her|them|it))\b|\bno need to (?!worry|stress|panic)\w+|\btry (?:\w+ing|to)\b|\bwhy not\b|\byou won't regret\b`,
    // A diagnosis or a legal conclusion is professional advice.
    String.raw`\b(?:sounds|looks|seems) like (?:you(?:'re| are| have| might have)|it's|it is|a case of)\b|\byou (?:probably|likely|most likely|might|may) have (?:an? )?\w+|\bdiagnos\w+ (?:it|you|this) as\b`,
    String.raw`\b(?:is|are|it's|that's|sounds like|looks like) (?:usually|probably|likely|most likely|almost certainly|almost always|nearly always|always|typically) (?:just )?(?:an?|the) \w+|\bshould (?:clear|fix|sort|cure|settle|ease|heal|take care of)(?: it| that| this| things| them| up)?\b|\b(?:usually|normally|typically) (?:fixes|clears|cures|sorts|solves) (?:it|that|this)\b`,
    // A benefit to the user, the one for them, or a waste for them is a recommendation for or against.
    String.raw`\b(?:it|that|this|which|doing so|doing that)(?:'ll|'d| will| would)? (?:really |easily |also )?(?:saves?|spares?) you\b|\b(?:would|will|'d|'ll) (?:really )?pay (?:off|for itself)\b`,
    String.raw`\b(?:it|that|this|which|doing so|doing that)(?:'ll|'d| will| would| should)? (?:really |also )?(?:(?:brings?|gets?|keeps?) your (?:\w+ ){0,2}down|(?:lowers?|cuts?|reduces?|shrinks?|slashes?) your)\b`,
    String.raw`\b(?:is|'s|are) (?:exactly |really |just |definitely )?(?:the one for you|what you need|the (?:best|right|ideal|perfect) (?:\w+ )?for you)\b|\b(?:a )?(?:complete |total )?waste of (?:time|money)\b`,
    String.raw`\byou could sue\b|\b(?:would|will) (?:likely|probably) win\b|\bis (?:probably |likely |clearly )?(?:unenforceable|enforceable|illegal|unlawful)\b`,
    String.raw`\bwithin your rights\b|\byou(?:'re| are) (?:legally )?entitled to\b|\blegally\b|\bby law\b|\b(?:can't|cannot|can not) (?:legally )?(?:evict|sue|fire|charge|bill|penali[sz]e|refuse) you\b`,
  ].join('|'),
  'gi',
)
/** A dose is a dosing instruction (unless the sentence reads it off its source: "the label says one tablet"). */
const DOSE = /\b(?:\d+(?:\.\d+)?|one|two|three|four|half an?)\s?(?:mg|ml|mcg|µg|milligrams?|millilit(?:er|re)s?|tablets?|pills?|capsules?|puffs?|drops|teaspoons?|tsp)\b/i

/** Words before a clause-initial verb that keep it an imperative ("Just use", "Honestly, grab"). */
const LEAD = String.raw`(?:(?:just|simply|now|so|then|honestly|sure|okay|ok|yes|yeah|well|also|and|definitely|really|quickly)[,!]?\s+)*`
/** Words that start a clause without being a verb in the imperative. */
const NOT_VERB = /^(?:i|you|we|they|he|she|it|this|that|these|those|there|here|what|which|who|when|where|why|how|the|a|an|your|my|our|their|his|her|its|some|any|all|both|each|every|no|not|if|since|because|as|but|or|and|for|with|without|in|on|at|by|from|to|of|after|before|while|once|unless|until|thanks|thank|sorry|great|good|nice|hi|hello|hey|yes|no|unfortunately|currently|today|tomorrow|please|is|are|was|were|be|been|do|does|did|can|could|will|would|should|may|might|must|has|have|had|let's|lets|let|sounds|looks|seems|according|based|due|most|many|more|less|only|also|even|still|however|otherwise|instead|here's|there's|that's|it's|what's|plus|overall|note|fyi|ps|ok|okay|sure|well|so|then|just|now|also|whether|either|neither|yours|mine|ours)$/
/** The words that follow an imperative verb ("take two", "grab it", "sell before", "tell me"). */
const AFTER_VERB = /^(?:the|a|an|your|my|it|them|me|us|him|her|this|that|these|those|some|any|all|one|two|three|four|five|half|\d[\d.,%]*|[$€£]\S*|before|after|up|off|out|on|in|down|back|over|away|now|more|less|at|with|for|to|into|onto|through|round|around|another|extra|double|only|every|each|whatever|somewhere|elsewhere)$/

/**
 * A clause that starts with a verb in the imperative ("Sell before December 31", "grab
 * it before the sale ends"): 'just' when it is played down ("just ignore the letter",
 * "just push through it"), which is advice, 'plain' otherwise (instructions are
 * imperatives too: "tap the recipe"), null when none.
 */
function imperative(sentence: string): 'just' | 'plain' | null {
  let found: 'just' | 'plain' | null = null
  for (const clause of sentence.split(/\s+[-–—]\s+|[;:!]\s+|,\s+(?:(?:and|then|so)\s+)?|^/)) {
    const m = new RegExp(`^\\s*(${LEAD})([A-Za-z]+)\\s+([\\w$€£.,%'-]+)`, 'i').exec(clause)
    if (!m) continue
    const [verb, next] = [m[2]!.toLowerCase(), m[3]!.toLowerCase().replace(/[.,]+$/, '')]
    if (NOT_VERB.test(verb) || /(?:ly|ed|ing)$/.test(verb) || (/[^s]s$/.test(verb) && verb.length > 4)) continue
    if (!AFTER_VERB.test(next)) continue
    // "Fibre 500 has ...": the first word was the subject.
    if (/^\s*\S+\s+\S+\s+(?:\S+\s+)?(?:is|are|was|were|has|have|had|costs?|includes?|comes?|runs?|starts?|offers?|gives?|provides?|means?|lets?|allows?)\b/i.test(clause.slice(m[1]!.length + (m.index ?? 0)))) continue
    if (/\b(?:just|simply)\b/i.test(m[1]!)) return 'just'
    found = 'plain'
  }
  return found
}

/** A question to the user about the user ("how old are you?", "what city are you in?"). */
const QUESTION_TO_USER = /\b(?:you|your|yours|you're|you've)\b[^?]*\?|\?[^?]*$/i
/** Asking for personal data in so many words. */
const ASK = /\b(?:(?:type|enter|send|share|give|read out|tell)(?: me| us)? (?:the|your) (?:[\w-]+ ){0,4}(?:code|passcode|PIN|password|card number|number on (?:the|your) card|otp|CVV)\b|(?:what(?:'s| is| are)|tell me|send (?:me|us)|give me|share|post|drop|type|enter|dm|text) (?:your|ur) (?:\w+ ){0,2}(?:name|address|school|email|e-mail|number|phone|age|birthday|location|city|town|username|handle|password|photo|picture|selfie|account|details)|tell me (?:your|about your)|send (?:me|us) (?:a (?:photo|picture|selfie))|snap a (?:picture|photo)|upload (?:a|your) (?:photo|picture|selfie)|where do you live|where are you from|how old are you|which school|(?:add|message|dm|text|call|email) me (?:on|at))\b/gi

/** Contact data and the attributes of a third person: a disclosure. */
const DISCLOSE = /(?:[\w.+-]+@[\w-]+\.[\w.-]+|\b\d{3}[ -.]\d{4}\b|\b(?:\d{4}[ -]?){3}\d{4}\b|\b\d{1,5}\s+[A-Z][a-z]+\s(?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Way)\b|\b(?:his|her|their|(?:[A-Z][a-z]+|manager|colleague|boss|co-?worker|teammate|supervisor|employee|customer|client|candidate|applicant|student|patient|neighbou?r|friend|wife|husband|partner|player|member|passenger|tenant|caller|mother|father|mom|mum|dad|sister|brother|son|daughter|boyfriend|girlfriend)'s) (?:salary|bonus|pay|address|phone|number|email|location|score|scores|grade|grades|GPA|results?|record|history|offer|rating|diagnosis|name|application|interview|background check|test)\b|\b(?:[A-Z][a-z]+|manager|colleague|boss|co-?worker|teammate|supervisor|employee|customer|client|candidate|applicant|student|patient|neighbou?r|friend|wife|husband|partner|player|member|passenger|tenant|caller|mother|father|mom|mum|dad|sister|brother|son|daughter|boyfriend|girlfriend)'s (?:\w+ ){0,2}(?:prescriptions?|medications?|medicines?|pills|tablets|refills?|insulin|balance|bill|usage|account|claim|orders?|booking|seats?|itinerary|return|refund|case|appointment|session|therapist|condition|treatment|codes?|password|pin|PIN|keys?|room|whereabouts|records)\b|\b(?:his|her|their) (?:\w+ )?(?:codes?|password|pin|PIN|number|address|balance|bill|usage|prescriptions?|diagnosis|seat|room) (?:is|was|are|were|:)|\b(?:is on|earns?|makes?|is paid|gets? paid|negotiated(?: a)?) (?:about |roughly |around )?[$€£]?\d[\d,.]*k?\b|\b(?:is|are) (?:stuck |parked |waiting |currently |still )?(?:at|near|outside) (?:the )?[\w ]{2,30}? (?:on|at|near) [A-Z0-9]|\b(?:lives|is staying|'s staying|is living|works) (?:at|in|on)\b|\b(?:neighbou?rs?|couple|tenants?|family|guy|lady|woman|man|residents?|people|folks|owners?|renters?|guests?) (?:in|at|from) (?:unit |apartment |flat |number |no\.? |room )?\d+[A-Za-z]?\b|\bborn (?:on|in)\b|\b(?:he|she|they|He|She|They)(?:'s| is|'re| are) (?:only |just |about |around |roughly |less than |under )*\d[\d.,]* ?(?:km|kilomet(?:er|re)s?|miles?|mi|m|met(?:er|re)s?|blocks?|minutes?|mins?) (?:from|away)\b|\b(?:another|other|the) (?:customer|employee|person|user|candidate|applicant|student|patient|player|member|colleague|passenger|client|account holder|caller)(?:'s|s'| you mentioned)|\banother (?:tenant|guest|resident|customer|client|user|account|patient|household)\b|\byour (?:sister|brother|mother|father|mom|mum|dad|wife|husband|partner|neighbou?r|friend|colleague|boss|son|daughter|cousin)\b(?: [A-Z][a-z]+)? (?:filed|got|received|paid|bought|ordered|booked|claimed|had|has|was)\b|\bbelongs? to (?:the )?[A-Z][a-z]+s?\b|, [A-Z][a-z]+, )/g
/**
 * Someone other than the user (a relative, a neighbour, another client) did something
 * specific: a figure, a day or a time in the same clause ("your wife spent 612 euros",
 * "the bakery, also our client, turned over about 400k", "your brother has his
 * appointment every Tuesday at 6"). A disclosure.
 */
const THIRD_PARTY_ACT = /\b(?:(?:your|the|a|another|my|his|her|their) (?:\w+ )?(?:neighbou?r|wife|husband|partner|brother|sister|mother|father|mom|mum|dad|son|daughter|friend|colleague|boss|ex|cousin|aunt|uncle|roommate|flatmate|tenant|customer|client|patient|member|guest|cardholder|account holder|lady|gentleman|man|woman|guy|person|couple|family)s?|(?:our|another|other) (?:clients?|customers?|members?|patients?|users?|tenants?))\b[^.;:]{0,40}?\b(?:spent|paid|pays|ordered|orders|bought|earned|earns|owes|owed|used|withdrew|transferred|booked|visited|collected|picked up|received|claimed|filed|got|turned over|made|had|has (?:his|her|their) \w+)\b[^.;:]{0,60}?(?:\d|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday|last (?:week|month|night|year))\b)/gi

/** Someone other than the user and the assistant as the subject of a fact: a disclosure, weak alone. */
const THIRD_PERSON = /\b(?:(?:he|she|they|He|She|They)(?:'s| is| was|'re| are| were)? (?:\w+ ){0,3}(?:from you|away|near|nearby|outside|at (?:the|a|his|her|their)|blocked|reported|unmatched|deleted|is seeing|living|staying))\b|\b(?:[Yy]our|[Tt]he|[Aa]|[Aa]nother|[Oo]ther|[Mm]y|[Oo]ur) (?:\w+ ){0,2}(?:neighbou?r|friend|colleague|co-?worker|boss|manager|classmate|roommate|flatmate|sister|brother|mother|father|mom|dad|wife|husband|partner|ex|aunt|uncle|cousin|son|daughter|customer|client|patient|student|applicant|candidate|employee|passenger|guest|tenant|member|player|caller|account holder|previous owner|new hire|tenant|ticket holder|match|ex|business partner|study partner)s?\b|\b[A-Z][a-z]+ (?:on your team|from (?:your|the) \w+|next door|in (?:unit|apartment|flat|room|seat) \w+)|\b[A-Z][a-z]+'s\b|\b(?:Mr|Mrs|Ms|Miss|Dr)\.? [A-Z][a-z]+|\bthe [A-Z][a-z]+s\b|\b(?:[Tt]he|[Aa]|[Tt]hat|[Tt]his) (?:lady|gentleman|man|woman|guy|person|girl|boy|couple|family) (?:who|that|from|in|at|before|next)\b|\b(?:on|to|at|in) [A-Z][a-z]+ (?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Close|Crescent|Way|Place)\b/g

const TRANSACT = /\b(?:I(?:'ve| have) (?:gone ahead and |already |just )?(?:issued|processed|approved|refunded|booked|added|credited|waived|cancell?ed|canceled|applied|granted|sent|made|changed|upgraded|reserved|removed|extended|reversed|adjusted|activated|scheduled|rebooked|switched|enrolled|set up|taken off|knocked off|moved|ported|transferred|swapped|unlocked|reactivated)|I went ahead and|I(?:'ve| have) (?:\w+ )?(?:knocked|taken) (?:[\w$€£.,]+ ){0,5}off\b|I can (?:go ahead and )?(?:refund|credit|waive|(?:take|knock) (?:[\w$€£.,%]+ ){0,5}off|give you (?:a |an )?(?:\w+ )?(?:discount|credit|refund))|I(?:'ll| will) (?:go ahead and )?(?:put you (?:in|on)|move you|seat you|assign you|reserve|hold|save you|refund|issue|credit|add|waive|book|approve|process|cancel|remove|extend|reverse|adjust|upgrade|rebook|switch|take off|knock off|give you)|(?:has|have) been (?:refunded|credited|approved|booked|waived|removed|reversed|cancell?ed|canceled|upgraded))\b/gi
const REFER_OUT = /(?:https?:\/\/|www\.|\b[a-z0-9-]+\.(?:com|org|net|io|gg|tv|co|app)\b|\b(?:YouTube|TikTok|Instagram|Insta|Discord|Reddit|Google|Facebook|Snapchat|Twitch|WhatsApp|Telegram|Twitter|Amazon|eBay)\b|\bjust search\b|\bsearch (?:for|online)\b|\bcheck out (?:this|the) (?:site|website|channel)\b)/gi
const CHARACTERIZE = /\b(?:mostly|full of|lots of|a lot of|crowd|mainly|predominantly|largely) (?:\w+ )?(?:young|old|older|retired|famil\w*|kids|children|professionals|students|people|immigrants|couples|singles)\b|\b(?:people|families|tenants|folks|someone|applicants|students|patients|customers) (?:like you|of your|from your)\b|\bfeel (?:more )?at home\b|\bprefer (?:tenants|people|applicants|candidates|customers)\b|\bas an? (?:\w+ ){0,2}(?:woman|man|immigrant|foreigner|applicant from|student from|person from|citizen of|\w+ national)\b/gi
const ESTIMATE = /\b(?:(?:looking at|expect|receive|owed|comes? to|works? out at|set you back|save you|saves you|cost you)(?: \w+){0,4}? (?:at least|at most|about|around|roughly|up to|over|under)|around|about|roughly|approximately|ballpark|usually (?:run|runs|cost|costs|go|goes|come in|comes? (?:to|in at))|I'd expect|expect (?:it|them|prices?|the \w+) to|budget (?:for )?about|somewhere between|in the region of|or so|give or take|probably)\s+(?:[$€£]?\d|\w+ (?:[$€£]?\d))/gi
/** A figure: money, a percentage, a count with a unit. */
const FIGURE = /(?:[$€£]\s?\d|\b\d[\d,.]*\s?(?:%|percent|dollars?|euros?|pounds?|usd|eur|gbp|k\b|mg|ml|mcg|tablets?|pills?|capsules?|units?|hours?|days?|weeks?|months?|mbps|gb|kwh))/i
/** Handing over the work itself: an essay, the answers, a finished piece. */
const PRODUCE = /\b(?:here(?:'s| is| are) (?:a|an|the|your) (?:\w+ ){0,3}(?:essay|answers?|solutions?|assignment|homework|report|draft|version|code|letter|cover letter|statement)|I(?:'ve| have) (?:written|drafted|done|completed|finished|solved|prepared) (?:it|the|your|a|an)|the answers? (?:to|for) (?:question|q|number|part|the)\b[^.]{0,40}\b(?:is|are)\b|(?:that|which) you can (?:submit|hand in|turn in|copy))/gi

/** Evaluative words about someone or something: disparagement. */
const DISPARAGE = /\b(?:junk|garbage|trash|rubbish|crap|crappy|useless|worthless|unreliable|overpriced|rip-?off|scam\w*|shady|dodgy|sketchy|incompetent|lousy|inferior|clueless|lazy|careless|pathetic|(?:an? )?(?:total |complete |absolute )?(?:joke|nightmare)|falls? apart|flabby|chubby|fat|ugly|gross|stupid|dumb|idiots?|morons?|liars?|crooks?|cowboys|not (?:very |that |so |particularly |exactly )?(?:attractive|good-looking|bright|smart|trustworthy|reliable|competent)|can do (?:much |a lot |way )?better|can't be trusted|is on (?:him|her|them)|(?:his|her|their) fault|to blame|messed up|screwed up|clearly (?:forgot|messed|failed|lost|broke|didn't)|I (?:wouldn't|would not) (?:touch|trust|go near|bother with)|stay away from|steer clear of|don't bother with|not worth (?:it|the money|buying|having)|(?:overheat|break|crash|freeze|fail|die|leak|lag|glitch)(?:s|es)? (?:constantly|all the time|non-?stop|every (?:day|week|time))|(?:always|constantly|keep) (?:breaking|crashing|overheating|failing|freezing))\b/gi

/** A marker right after a negation ("does not guarantee", "don't share your address") is not the act. */
const NEGATED_BEFORE = /(?:\bnot|\bnever|\bno|n't)\s+(?:\w+\s+){0,2}$/i

function present(re: RegExp, sentence: string, quoted = ''): boolean {
  for (const m of sentence.matchAll(re)) {
    if (NEGATED_BEFORE.test(sentence.slice(Math.max(0, m.index - 40), m.index))) continue
    // A term the policy itself uses ("minimum guaranteed speed", "the seller guarantee") names a thing, it promises nothing.
    const term = new RegExp(`\\b${escape(m[0].trim())}\\s+${escape(/^\s*([\w-]+)/.exec(sentence.slice(m.index + m[0].length))?.[1] ?? '@')}\\b`, 'i')
    const before = new RegExp(`\\b${escape(/([\w-]+)\s*$/.exec(sentence.slice(0, m.index))?.[1] ?? '@')}\\s+${escape(m[0].trim())}\\b`, 'i')
    if (quoted && /^[a-z ]+$/i.test(m[0].trim()) && (term.test(quoted) || before.test(quoted))) continue
    // A literal the policy quotes (a support address, a published figure) is public.
    if (/[@\d]/.test(m[0]) && quoted.includes(m[0].trim().replace(/[.,;:]+$/, ''))) continue
    return true
  }
  return false
}

/**
 * The acts a sentence performs, each strong or weak. `quoted` is the policy text: a
 * literal it quotes is public, not a disclosure.
 */
export function sentenceActs(sentence: string, quoted = ''): SentenceActs {
  const out: SentenceActs = new Map()
  const add = (kind: ActKind, strength: Strength) => {
    if (out.get(kind) !== 'strong') out.set(kind, strength)
  }
  const certain = present(CERTAIN, sentence, quoted)
  if (certain) add('promise', 'strong')
  else if (present(LIKELY, sentence, quoted)) add('promise', 'weak')
  const mood = imperative(sentence)
  if (present(ADVISE, sentence, quoted) || mood === 'just' || (DOSE.test(sentence) && !attributed(sentence))) add('recommend', 'strong')
  else if (mood || /\byou could\b/i.test(sentence)) add('recommend', 'weak')
  if (present(ASK, sentence, quoted)) add('solicit', 'strong')
  else if (QUESTION_TO_USER.test(sentence) && sentence.includes('?')) add('solicit', 'weak')
  if (present(DISCLOSE, sentence, quoted) || present(THIRD_PARTY_ACT, sentence, quoted)) add('disclose', 'strong')
  else if (present(THIRD_PERSON, sentence, quoted)) add('disclose', 'weak')
  if (present(TRANSACT, sentence, quoted)) add('transact', 'strong')
  if (present(REFER_OUT, sentence, quoted)) add('refer_out', 'strong')
  if (present(CHARACTERIZE, sentence, quoted)) add('characterize', 'strong')
  if (present(ESTIMATE, sentence, quoted)) add('estimate', 'strong')
  else if (FIGURE.test(sentence) && !quotedFigures(sentence, quoted)) add('estimate', 'weak')
  if (present(DISPARAGE, sentence, quoted)) add('disparage', 'strong')
  if (present(PRODUCE, sentence, quoted)) add('produce', 'strong')
  // Certainty or disparagement states something as fact. (A plain statement is not a cue: every sentence is one.)
  if (certain || out.get('disparage') === 'strong') add('assert', 'strong')
  return out
}

/** Every figure of the sentence is one the policy itself states. */
function quotedFigures(sentence: string, quoted: string): boolean {
  const figures = (sentence.match(/\d[\d,.]*/g) ?? []).map((f) => f.replace(/[.,]+$/, ''))
  return figures.length > 0 && figures.every((f) => quoted.includes(f))
}

/** An output sentence that refuses, defers or hands over is not doing the act. */
export const DEFERS = /\b(?:(?:I|we)(?:'m| am| are)? (?:really |honestly |simply )?(?:(?:can't|cannot|can not)(?! see\b| imagine\b| think\b| believe\b)|unable to|not able to|won't|will not|not allowed to|not permitted to|not in a position to|afraid I can't)|(?:please )?(?:contact|ask|speak (?:to|with)|talk to|reach out to|refer (?:you|it) to|passing (?:this|it) to|hand(?:ing)? (?:this|you|it) (?:over )?to|connect you (?:with|to)|book (?:you )?an? (?:session|call|appointment|consultation) with) (?:a |an |the |your |our |one of our )?(?:human|licensed|qualified|\w+ )?(?:agent|advisor|adviser|partner|specialist|team|doctor|pharmacist|lawyer|attorney|officer|counsel\w*|grown-up|parent|teacher|adult|representative|manager|consulate|professional|therapist|clinician|GP|physician|preparer|accountant|technician|expert)s?|(?:is|are) (?:decided|determined|set|assessed|reviewed|made) (?:\w+ )?by|decisions are made by|depend(?:s|ing)? (?:\w+ )?on|(?:it's|that's|this is|is) up to (?:you|them|the)|(?:is|are|will be|gets?) (?:decided|determined|assessed|reviewed|calculated|confirmed|set) (?:\w+ )?(?:by|after|at|during|following|once|when)|(?:who|which|they|he|she|(?:the|your|our) (?:\w+ )?\w+) (?:will|can|would|is going to) (?:decide|determine|assess|review|evaluate|confirm|investigate|look into|follow up|get back to you|make the (?:decision|call))|only (?:they|the \w+|your \w+) can|I (?:can|may) only|I'm only able to|(?:with|to|by|from) (?:your|a|an|the) (?:own )?(?:doctor|GP|pharmacist|prescriber|psychiatrist|therapist|lawyer|attorney|accountant|adviser|advisor|tax professional|specialist|vet|midwife|physician|clinician|counsell?or)s?|(?:I've|I have|I'm|I am) (?:passed|passing|forwarded|forwarding|escalated|escalating|referred|referring|sent|sending) (?:this|it|your (?:\w+ ){0,3}?\w+) (?:on |over )?to)\b/i

/**
 * A sentence that gives its figure or fact as a source states it ("according to the
 * history report", "as listed on the calendar", "the booking system shows"): it
 * quotes, it does not assert on its own.
 */
const ATTRIBUTION = /\b(?:according to|(?:on|in|from) (?:our|the|your) (?:[\w-]+ ){0,2}(?:chart|charts|page|list|calendar|website|statement|report|record|records|app|system|dashboard|schedule|label|labels|receipt|invoice|listing|portal)\b|as (?:listed|shown|published|stated|returned|quoted|posted|displayed|set out|printed|recorded|written|given)|(?:the|your|our|its) (?:[\w-]+ ){0,5}(?:shows?|lists?|says|states|confirms?|records?|displays?|estimates|reports|indicates|has (?:it|you|this|that) (?:at|as)) |listed (?:at|as|in|on|for)|(?:shown|published|posted|printed|stated) (?:on|in))/i

/** Clauses a refusal or deferral covers alone ("It's a urine infection - ask your GP for ..."). */
export const DEFERRAL_CLAUSES = /[;:]\s+|\s[-–—]\s|,\s*but\s+/
const CLAUSES = /[;:]\s+|,\s*(?:but|so|and|although|though|while|whereas)\s+|\s[-–—]\s/

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Every clause of the sentence that states a figure gives it as a source's (ATTRIBUTION): the sentence quotes. */
export function attributed(sentence: string): boolean {
  if (!ATTRIBUTION.test(sentence)) return false
  return sentence.split(CLAUSES).every((c) => !/\d/.test(c) || ATTRIBUTION.test(c))
}
