/**
 * What the HTTP interface must know about a statement before chdb runs it, read by
 * a lexer that follows ClickHouse's own (strings with backslash escapes and doubled
 * quotes, "…" and `…` identifiers, $tag$ heredocs, --, # and nested slash-star
 * comments): its kind (the analyst may only read), a second statement after a `;`
 * (ClickHouse's HTTP interface takes one; chdb would run them all), the output
 * FORMAT clause (the response's headers, whether it can stream), INTO OUTFILE and
 * FROM INFILE (a server never writes or reads its own files for an HTTP client), and
 * where an INSERT's data begins. Everything else is left to ClickHouse's parser.
 */

export interface InsertData {
  /** The input format named by `FORMAT x`, or 'Values' for `VALUES …`. */
  format: string
  /** Offset where the data begins (after the format name, its blanks and one line break). */
  dataStart: number
  /** Offset where `FROM INFILE '…'` fits: before the statement's SETTINGS or FORMAT clause. */
  infileAt: number
}

export interface Statement {
  /** The first keyword, upper-cased ('SELECT', 'INSERT', 'SHOW', …); '(' for a parenthesized query; '' when there is none. */
  kind: string
  /** Offset of a `;` followed by another statement, which the HTTP interface refuses. */
  secondStatementAt: number | null
  /** The name in the statement's output `FORMAT x` clause. */
  outputFormat: string | null
  insert: InsertData | null
  intoOutfile: boolean
  fromInfile: boolean
  /** The text could not be read to its end (an unterminated string or comment, or a cut-off text). */
  incomplete: boolean
}

type TokenType = 'word' | 'quoted' | 'string' | 'number' | 'open' | 'close' | 'semicolon' | 'other'

interface Token {
  type: TokenType
  start: number
  end: number
  /** Upper-cased text of a word. */
  word?: string
}

const isWordStart = (c: string) => /[A-Za-z_\u0080-\uffff]/.test(c)
const isWordPart = (c: string) => /[A-Za-z0-9_$\u0080-\uffff]/.test(c)
const isDigit = (c: string) => c >= '0' && c <= '9'

/** End of a quoted run starting at `i` (the opening quote), or -1 when it is not closed. */
function quotedEnd(text: string, i: number): number {
  const q = text[i]!
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j]
    if (c === '\\') j++
    else if (c === q) {
      if (text[j + 1] === q) j++
      else return j + 1
    }
  }
  return -1
}

/** End of a slash-star comment starting at `i`; they nest, as in ClickHouse. */
function blockCommentEnd(text: string, i: number): number {
  let depth = 0
  for (let j = i; j < text.length - 1; j++) {
    if (text[j] === '/' && text[j + 1] === '*') {
      depth++
      j++
    } else if (text[j] === '*' && text[j + 1] === '/') {
      depth--
      j++
      if (depth === 0) return j + 1
    }
  }
  return -1
}

/**
 * The next token at or after `i`, skipping blanks and comments; null at the end of
 * the text; 'incomplete' when a string or comment runs off it.
 */
function nextToken(text: string, i: number): Token | null | 'incomplete' {
  const n = text.length
  while (i < n) {
    const c = text[i]!
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') {
      i++
    } else if ((c === '-' && text[i + 1] === '-') || c === '#') {
      const eol = text.indexOf('\n', i)
      i = eol === -1 ? n : eol + 1
    } else if (c === '/' && text[i + 1] === '*') {
      const end = blockCommentEnd(text, i)
      if (end === -1) return 'incomplete'
      i = end
    } else break
  }
  if (i >= n) return null
  const c = text[i]!
  if (c === "'" || c === '"' || c === '`') {
    const end = quotedEnd(text, i)
    if (end === -1) return 'incomplete'
    return { type: c === "'" ? 'string' : 'quoted', start: i, end }
  }
  if (c === '$') {
    const tag = /^\$[A-Za-z0-9_]*\$/.exec(text.slice(i, i + 256))
    if (tag) {
      const close = text.indexOf(tag[0], i + tag[0].length)
      if (close === -1) return 'incomplete'
      return { type: 'string', start: i, end: close + tag[0].length }
    }
  }
  if (isWordStart(c)) {
    let j = i + 1
    while (j < n && isWordPart(text[j]!)) j++
    return { type: 'word', start: i, end: j, word: text.slice(i, j).toUpperCase() }
  }
  if (isDigit(c) || (c === '.' && isDigit(text[i + 1] ?? ''))) {
    let j = i + 1
    while (j < n && /[0-9A-Za-z_.]/.test(text[j]!)) {
      // An exponent's sign belongs to the number (1e-5).
      if ((text[j] === 'e' || text[j] === 'E') && (text[j + 1] === '-' || text[j + 1] === '+')) j++
      j++
    }
    return { type: 'number', start: i, end: j }
  }
  if (c === '(' || c === '[' || c === '{') return { type: 'open', start: i, end: i + 1 }
  if (c === ')' || c === ']' || c === '}') return { type: 'close', start: i, end: i + 1 }
  if (c === ';') return { type: 'semicolon', start: i, end: i + 1 }
  return { type: 'other', start: i, end: i + 1 }
}

/** The offset where an INSERT's data begins after the token ending at `at`: blanks, then at most one line break. */
function dataStartAfter(text: string, at: number): number {
  let i = at
  while (text[i] === ' ' || text[i] === '\t' || text[i] === '\f') i++
  if (text[i] === '\r') i++
  if (text[i] === '\n') i++
  return i
}

const isFormatName = (t: Token | null | 'incomplete'): t is Token => typeof t === 'object' && t !== null && (t.type === 'word' || t.type === 'quoted')

/** Reads one statement from `text` (see the file comment). `complete` is false when `text` is a cut-off prefix of the request. */
export function analyzeStatement(text: string, complete = true): Statement {
  const st: Statement = { kind: '', secondStatementAt: null, outputFormat: null, insert: null, intoOutfile: false, fromInfile: false, incomplete: !complete }
  let depth = 0
  let prev: Token | null = null
  let semicolon: Token | null = null
  let clauseAt: number | null = null // an INSERT's first top-level SETTINGS or FORMAT
  let i = 0
  for (;;) {
    const t = nextToken(text, i)
    if (t === 'incomplete') {
      st.incomplete = true
      return st
    }
    if (t === null) break
    i = t.end
    if (semicolon) {
      st.secondStatementAt = semicolon.start
      return st
    }
    if (st.kind === '') st.kind = t.type === 'word' ? t.word! : t.type === 'open' && text[t.start] === '(' ? '(' : text.slice(t.start, t.end)
    if (t.type === 'open') depth++
    else if (t.type === 'close') depth = Math.max(0, depth - 1)
    else if (t.type === 'semicolon' && depth === 0) semicolon = t
    else if (t.type === 'word') {
      if (prev?.word === 'INTO' && t.word === 'OUTFILE') st.intoOutfile = true
      if (prev?.word === 'FROM' && t.word === 'INFILE') st.fromInfile = true
      if (depth === 0 && st.kind === 'INSERT') {
        if ((t.word === 'SETTINGS' || t.word === 'FORMAT') && clauseAt === null) clauseAt = t.start
        if (t.word === 'VALUES' && !st.fromInfile) {
          st.insert = { format: 'Values', dataStart: t.end, infileAt: clauseAt ?? t.start }
          return st
        }
        if (t.word === 'SELECT' || t.word === 'WITH') clauseAt = -1 // INSERT … SELECT: no data follows
        if (t.word === 'FORMAT' && clauseAt !== -1 && !st.fromInfile) {
          const name = nextToken(text, t.end)
          if (isFormatName(name)) {
            st.insert = { format: unquote(text.slice(name.start, name.end)), dataStart: dataStartAfter(text, name.end), infileAt: clauseAt ?? t.start }
            return st
          }
        }
      } else if (depth === 0 && prev?.word === 'FORMAT' && isOutputClauseEnd(nextToken(text, t.end))) {
        st.outputFormat = unquote(text.slice(t.start, t.end))
      }
    } else if (t.type === 'quoted' && depth === 0 && prev?.word === 'FORMAT' && st.kind !== 'INSERT' && isOutputClauseEnd(nextToken(text, t.end))) {
      st.outputFormat = unquote(text.slice(t.start, t.end))
    }
    prev = t
  }
  return st
}

/** `FORMAT x` is the output clause only when nothing but SETTINGS (or the end) follows it: `SELECT format FROM t` is a column. */
const isOutputClauseEnd = (after: Token | null | 'incomplete') => after === null || (after !== 'incomplete' && (after.type === 'semicolon' || after.word === 'SETTINGS'))

function unquote(name: string): string {
  const q = name[0]
  if ((q === '"' || q === '`') && name.endsWith(q)) return name.slice(1, -1).replace(/\\(.)/g, '$1').replaceAll(q + q, q)
  return name
}

/** Statements the analyst may run: reads. ClickHouse's readonly=1 refuses the rest too; this answers before any work. */
export const READ_KINDS = new Set(['SELECT', 'WITH', '(', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN', 'EXISTS'])

/** Statements that change something (ClickHouse's statement keywords other than the reads above). */
export const WRITE_KINDS = new Set([
  'INSERT', 'CREATE', 'DROP', 'ALTER', 'TRUNCATE', 'RENAME', 'EXCHANGE', 'OPTIMIZE', 'SYSTEM', 'KILL', 'SET', 'USE', 'GRANT', 'REVOKE',
  'ATTACH', 'DETACH', 'UNDROP', 'DELETE', 'UPDATE', 'BACKUP', 'RESTORE', 'CHECK', 'MOVE', 'REPLACE', 'UPSERT', 'BEGIN', 'COMMIT', 'ROLLBACK',
])

/** Statements chdb can stream (the others it runs whole): queries. */
export const STREAMABLE_KINDS = new Set(['SELECT', 'WITH', '('])
