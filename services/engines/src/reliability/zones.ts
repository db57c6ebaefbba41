/**
 * Offsets from UTC (minutes) a trace's times may be shown in: those it writes ("UTC-8", a timestamp's "+08:00") and
 * those of the zones it names, by IANA name ("America/Chicago") or in words ("7:03 pm PT", "Pacific", "CET", "London
 * time", "AoE"), at the offset each has on the days of the trace's UTC timestamps (else of its dates; with neither, in
 * January and July), so daylight saving time is what the zone's own rules say it was (the runtime's time zone data).
 */

/** Zone names and abbreviations, and the IANA zone they stand for. Abbreviations match in capitals only. */
const ZONES: Array<[RegExp, string]> = [
  [/\b(?:[Pp]acific(?: [Tt]ime)?(?!\/)|PT|PST|PDT|Los Angeles|San Francisco|Seattle|Vancouver)\b/, 'America/Los_Angeles'],
  [/\b(?:[Mm]ountain [Tt]ime|MT|MST|MDT|Denver)\b/, 'America/Denver'],
  // ("Central" alone only after a clock time, "1:15 am Central": not "Central Station")
  [/\b(?:[Cc]entral [Tt]ime|(?<=\d(?:\s?[ap]\.?m\.?)?\s)Central(?! European)|CT|CST|CDT|Chicago|Dallas|Houston)\b/, 'America/Chicago'],
  [/\b(?:[Ee]astern(?: [Tt]ime)?|ET|EST|EDT|New York|Toronto|Boston|Miami)\b/, 'America/New_York'],
  [/\b(?:UK time|London|BST|Dublin|Lisbon)\b/, 'Europe/London'],
  [/\b(?:CET|CEST|Central European|Paris|Berlin|Madrid|Rome|Amsterdam|Brussels|Vienna|Zurich|Zürich|Warsaw|Prague|Stockholm|Oslo|Copenhagen)\b/, 'Europe/Paris'],
  [/\b(?:EET|EEST|Athens|Helsinki)\b/, 'Europe/Helsinki'],
  [/\b(?:JST|Tokyo|Japan)\b/, 'Asia/Tokyo'],
  [/\b(?:Singapore|SGT)\b/, 'Asia/Singapore'],
  [/\bIST\b|\b(?:India|Mumbai|Delhi|Bengaluru|Bangalore)\b/, 'Asia/Kolkata'],
  [/\b(?:Sydney|Melbourne|AEST|AEDT)\b/, 'Australia/Sydney'],
  [/\b(?:Auckland|NZST|NZDT)\b/, 'Pacific/Auckland'],
  [/\b(?:Dubai|Abu Dhabi)\b/, 'Asia/Dubai'],
  [/\b(?:Hong Kong|HKT)\b/, 'Asia/Hong_Kong'],
  // Anywhere on Earth: UTC-12 all year (IANA writes the sign the other way).
  [/\b(?:AoE|Anywhere on Earth)\b/, 'Etc/GMT+12'],
]
const IANA = /\b(?:America|Europe|Asia|Africa|Australia|Pacific|Atlantic|Indian)\/[A-Za-z_]+(?:\/[A-Za-z_]+)?\b/g

const formats = new Map<string, Intl.DateTimeFormat | null>()
/** The zone's offset from UTC (minutes) at an instant, or null for a name the runtime does not know. */
export function zoneOffset(zone: string, at: Date): number | null {
  let f = formats.get(zone)
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    } catch {
      f = null
    }
    formats.set(zone, f)
  }
  const name = f?.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value
  if (!name) return null
  const m = /GMT(?:([+-−])(\d{2}):(\d{2}))?/.exec(name)
  if (!m) return null
  return m[1] ? (m[1] === '+' ? 1 : -1) * (Number(m[2]) * 60 + Number(m[3])) : 0
}

/** Days the trace's times fall on, at most this many (each named zone adds at most its offsets on them). */
const MAX_DAYS = 16

/** Offsets from UTC, in minutes, the texts write or name. */
export function offsetsIn(texts: string[]): number[] {
  const out = new Set<number>()
  const stamps = new Set<number>()
  const dates = new Set<number>()
  for (const t of texts) {
    for (const m of t.matchAll(/\b(?:UTC|GMT)\s?([+-−])\s?(\d{1,2})(?::?(\d{2}))?\b|T\d{2}:\d{2}(?::\d{2})?([+-])(\d{2}):?(\d{2})\b/g)) {
      const sign = (m[1] ?? m[4]) === '+' ? 1 : -1
      const h = Number(m[2] ?? m[5])
      const min = Number(m[3] ?? m[6] ?? 0)
      if (h <= 14) out.add(sign * (h * 60 + min))
    }
    for (const m of t.matchAll(/\b(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z)?/g)) {
      const day = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 12)
      if (Number.isFinite(day)) (m[4] ? stamps : dates).add(day)
    }
  }
  const year = new Date().getUTCFullYear()
  const days = [...(stamps.size ? stamps : dates.size ? dates : new Set([Date.UTC(year, 0, 15), Date.UTC(year, 6, 15)]))].slice(0, MAX_DAYS).map((d) => new Date(d))
  const all = texts.join('\n')
  const zones = new Set([...ZONES.filter(([re]) => re.test(all)).map(([, z]) => z), ...(all.match(IANA) ?? [])])
  for (const z of zones)
    for (const d of days) {
      const o = zoneOffset(z, d)
      if (o !== null) out.add(o)
    }
  return [...out]
}
