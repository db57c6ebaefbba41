/**
 * ClickHouse's exceptions as its HTTP interface answers them: the body
 * `Code: N. DB::Exception: <message>. (NAME) (version V)`, the header
 * X-ClickHouse-Exception-Code, and the status its exceptionCodeToHTTPStatus picks
 * (src/Server/HTTP/exceptionCodeToHTTPStatus.cpp): 500 for every code it does not
 * list, READONLY among them, as the real server answers.
 */

/** The codes this interface raises itself, with ClickHouse's names (ErrorCodes.cpp; checked with errorCodeToName in errors.test.ts). */
export const CODES = {
  BAD_ARGUMENTS: 36,
  NOT_IMPLEMENTED: 48,
  SYNTAX_ERROR: 62,
  UNKNOWN_COMPRESSION_METHOD: 89,
  UNKNOWN_SETTING: 115,
  READONLY: 164,
  REQUIRED_PASSWORD: 194,
  QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING: 216,
  QUERY_IS_TOO_LARGE: 229,
  INTO_OUTFILE_NOT_ALLOWED: 358,
  QUERY_WAS_CANCELLED: 394,
  AUTHENTICATION_FAILED: 516,
  UNKNOWN_EXCEPTION: 1002,
} as const

const NAMES = new Map<number, string>(Object.entries(CODES).map(([name, code]) => [code, name]))

export class ClickHouseException extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** The name in parentheses; chdb's messages carry their own. */
    readonly codeName: string = NAMES.get(code) ?? 'UNKNOWN_EXCEPTION',
  ) {
    super(message)
  }
}

export const exception = (name: keyof typeof CODES, message: string) => new ClickHouseException(CODES[name], message, name)

const CHDB_MESSAGE = /^Code: (\d+)\. DB::Exception: ([\s\S]*)$/

const NESTED_PREFIX = /^Code: \d+\. DB::Exception: /
const TRAILING_VERSION = /\.?\s*\(version [^()]*(?:\([^()]*\))?[^()]*\)\s*$/
const TRAILING_NAME = /\.?\s*\(([A-Z][A-Z0-9_]+)\)\s*$/

/**
 * An error chdb threw, as the exception ClickHouse would send: its code and text
 * come from the message (`Code: 62. DB::Exception: … (SYNTAX_ERROR)`). chdb wraps
 * some in copies of themselves ("Code: 73. DB::Exception: Code: 73. DB::Exception:
 * … (UNKNOWN_FORMAT) (version …). (UNKNOWN_FORMAT)"); the innermost is what a server
 * reports.
 */
export function fromChdb(err: unknown): ClickHouseException {
  if (err instanceof ClickHouseException) return err
  const text = err instanceof Error ? err.message : String(err)
  const m = CHDB_MESSAGE.exec(text.trim())
  if (!m) return new ClickHouseException(CODES.UNKNOWN_EXCEPTION, text)
  let body = m[2]!
  while (NESTED_PREFIX.test(body)) body = body.replace(NESTED_PREFIX, '')
  let name: string | undefined
  for (let before = ''; before !== body; ) {
    before = body
    body = body.replace(TRAILING_VERSION, '')
    const named = TRAILING_NAME.exec(body)
    if (named) {
      name ??= named[1]
      body = body.slice(0, named.index)
    }
  }
  return new ClickHouseException(Number(m[1]), body, name ?? NAMES.get(Number(m[1])) ?? 'UNKNOWN_EXCEPTION')
}

/** The exception's text as a server writes it: one line (or more, for messages that have them) ending in the version. */
export function exceptionText(e: ClickHouseException, version: string): string {
  return `Code: ${e.code}. DB::Exception: ${e.message}. (${e.codeName}) (version ${version})`
}

// exceptionCodeToHTTPStatus's lists, by code (names in the comments).
// BAD_ARGUMENTS, CANNOT_COMPILE_REGEXP, CANNOT_PARSE_{TEXT, ESCAPE_SEQUENCE, QUOTED_STRING, DATE, DATETIME, NUMBER,
// DOMAIN_VALUE_FROM_STRING, IPV4, IPV6, INPUT_ASSERTION_FAILED, UUID}, DUPLICATE_COLUMN, ILLEGAL_COLUMN,
// UNKNOWN_ELEMENT_IN_AST, UNKNOWN_TYPE_OF_AST_NODE, THERE_IS_NO_COLUMN, TOO_DEEP_AST, TOO_BIG_AST,
// UNEXPECTED_AST_STRUCTURE, SYNTAX_ERROR, INCORRECT_DATA, TYPE_MISMATCH, VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
const BAD_REQUEST = new Set([36, 427, 6, 25, 26, 38, 41, 72, 441, 675, 676, 27, 376, 15, 44, 37, 123, 8, 167, 168, 223, 62, 117, 53, 321])
// UNKNOWN_TABLE, _FUNCTION, _IDENTIFIER, _TYPE, _STORAGE, _DATABASE, _SETTING, _DIRECTION_OF_SORTING,
// _AGGREGATE_FUNCTION, _FORMAT, _DATABASE_ENGINE, _TYPE_OF_QUERY, _ROLE
const NOT_FOUND = new Set([60, 46, 47, 50, 56, 81, 115, 152, 63, 73, 336, 78, 511])
// UNKNOWN_USER, WRONG_PASSWORD, AUTHENTICATION_FAILED, SET_NON_GRANTED_ROLE, ACCESS_DENIED
const FORBIDDEN = new Set([192, 193, 516, 512, 497])

/** HTTP status for an exception code, as ClickHouse's exceptionCodeToHTTPStatus. */
export function httpStatusFor(code: number): number {
  if (code === CODES.REQUIRED_PASSWORD) return 401
  if (FORBIDDEN.has(code)) return 403
  if (BAD_REQUEST.has(code)) return 400
  if (NOT_FOUND.has(code)) return 404
  if (code === CODES.QUERY_IS_TOO_LARGE) return 413
  if (code === CODES.NOT_IMPLEMENTED) return 501
  if (code === 209 || code === 76 || code === 439) return 503 // SOCKET_TIMEOUT, CANNOT_OPEN_FILE, CANNOT_SCHEDULE_TASK
  if (code === 381) return 411 // HTTP_LENGTH_REQUIRED
  if (code === 159) return 408 // TIMEOUT_EXCEEDED
  if (code === 779) return 415 // UNSUPPORTED_MEDIA_TYPE
  return 500
}
