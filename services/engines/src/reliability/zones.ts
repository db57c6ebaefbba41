/**
 * Offsets from UTC (minutes) a trace's times may be shown in: those it writes ("UTC-8", a timestamp's "+08:00") and
 * those of the zones it names ("7:03 pm PT", "Pacific", "CET"), in daylight saving time or not as the days of its UTC
 * timestamps fall (the US from the second Sunday of March to the first of November, Europe from the last Sunday of
 * March to the last of October); with no such timestamp, both.
 */

type Rule = 'us' | 'eu' | null

/** Zone names and abbreviations: standard offset and daylight saving rule. Abbreviations match in capitals only. */
const ZONES: Array<[RegExp, number, Rule]> = [
  [/\b(?:[Pp]acific(?: [Tt]ime)?|PT|PST|PDT)\b/, -480, 'us'],
  [/\b(?:[Mm]ountain [Tt]ime|MT|MST|MDT)\b/, -420, 'us'],
  [/\b(?:[Cc]entral [Tt]ime|CT|CST|CDT)\b/, -360, 'us'],
  [/\b(?:[Ee]astern(?: [Tt]ime)?|ET|EST|EDT)\b/, -300, 'us'],
  [/\b(?:UK time|London|BST)\b/, 0, 'eu'],
  [/\b(?:CET|CEST|Central European|Paris|Berlin|Madrid|Rome|Amsterdam|Brussels|Vienna|Zurich|Zürich)\b/, 60, 'eu'],
  [/\b(?:EET|EEST|Athens|Helsinki)\b/, 120, 'eu'],
  [/\b(?:JST|Tokyo)\b/, 540, null],
  [/\b(?:Singapore|SGT)\b/, 480, null],
  [/\bIST\b|\bIndia\b/, 330, null],
]

/** The day (of the month) of the n-th Sunday of a month; n = -1 for the last. */
function sunday(year: number, month: number, n: number): number {
  if (n > 0) {
    const first = new Date(Date.UTC(year, month - 1, 1)).getUTCDay()
    return 1 + ((7 - first) % 7) + (n - 1) * 7
  }
  const lastDay = new Date(Date.UTC(year, month, 0))
  return lastDay.getUTCDate() - lastDay.getUTCDay()
}

/** Whether daylight saving time is in force on a UTC day under a rule. */
export function daylight(rule: Rule, day: Date): boolean {
  if (!rule) return false
  const y = day.getUTCFullYear()
  const [from, to] =
    rule === 'us' ? [Date.UTC(y, 2, sunday(y, 3, 2)), Date.UTC(y, 10, sunday(y, 11, 1))] : [Date.UTC(y, 2, sunday(y, 3, -1)), Date.UTC(y, 9, sunday(y, 10, -1))]
  return day.getTime() >= from && day.getTime() < to
}

/** Offsets from UTC, in minutes, the texts write or name. */
export function offsetsIn(texts: string[]): number[] {
  const out = new Set<number>()
  const days: Date[] = []
  for (const t of texts) {
    for (const m of t.matchAll(/\b(?:UTC|GMT)\s?([+-−])\s?(\d{1,2})(?::?(\d{2}))?\b|T\d{2}:\d{2}(?::\d{2})?([+-])(\d{2}):?(\d{2})\b/g)) {
      const sign = (m[1] ?? m[4]) === '+' ? 1 : -1
      const h = Number(m[2] ?? m[5])
      const min = Number(m[3] ?? m[6] ?? 0)
      if (h <= 14) out.add(sign * (h * 60 + min))
    }
    for (const m of t.matchAll(/\b(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z/g)) days.push(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))))
  }
  const all = texts.join('\n')
  for (const [re, offset, rule] of ZONES) {
    if (!re.test(all)) continue
    if (!rule) out.add(offset)
    else if (!days.length) out.add(offset).add(offset + 60)
    else for (const d of days) out.add(daylight(rule, d) ? offset + 60 : offset)
  }
  return [...out]
}
