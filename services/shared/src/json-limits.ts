/**
 * Bounds on what a client's JSON can make this process do. JSON.parse is iterative
 * in V8, so a body of 10,000 nested arrays parses fine, but every recursive walk
 * over it (JSON.stringify among them) overflows the stack: such a value must be
 * refused, or rendered only down to a depth, before anything recursive sees it.
 */

/**
 * Deepest nesting of objects and arrays accepted in a client's JSON value: an
 * ingest attribute value (as OTLP AnyValue levels or flat JSON) and a whole
 * read-API request body. No legitimate payload comes near it.
 */
export const MAX_JSON_DEPTH = 32

const isContainer = (v: unknown): v is object => typeof v === 'object' && v !== null

/**
 * True when `value` nests objects/arrays more than `maxDepth` levels deep (a
 * scalar is depth 0, `[1]` depth 1). Iterative, so any depth is safe to ask about;
 * it stops at the first path that is too deep.
 */
export function jsonDepthExceeds(value: unknown, maxDepth: number): boolean {
  if (!isContainer(value)) return false
  const stack: Array<[object, number]> = [[value, 1]]
  while (stack.length) {
    const [v, depth] = stack.pop()!
    if (depth > maxDepth) return true
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (isContainer(child)) stack.push([child, depth + 1])
  }
  return false
}

/**
 * JSON text of a parsed JSON value, as JSON.stringify writes it, for showing a
 * client's value to a human (error messages, dead-letter payloads): containers
 * deeper than `maxDepth` are written as the string "[nested too deep]", and writing
 * stops soon after `maxChars` (the text is then cut and not valid JSON), so neither
 * the stack nor the output grows with the value.
 */
export function boundedJson(value: unknown, opts: { maxDepth: number; maxChars: number }): string {
  let out = ''
  const write = (v: unknown, depth: number): void => {
    if (out.length > opts.maxChars) return
    if (v === null || v === undefined || typeof v === 'function' || typeof v === 'symbol') out += 'null'
    else if (typeof v === 'string') out += JSON.stringify(v)
    else if (typeof v === 'number') out += Number.isFinite(v) ? String(v) : 'null'
    else if (typeof v === 'boolean') out += v ? 'true' : 'false'
    else if (typeof v === 'bigint') out += v.toString()
    else if (depth >= opts.maxDepth) out += '"[nested too deep]"'
    else if (Array.isArray(v)) {
      out += '['
      for (let i = 0; i < v.length && out.length <= opts.maxChars; i++) {
        if (i) out += ','
        write(v[i], depth + 1)
      }
      out += ']'
    } else {
      out += '{'
      let first = true
      for (const [k, x] of Object.entries(v as object)) {
        if (out.length > opts.maxChars) break
        if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue
        out += (first ? '' : ',') + JSON.stringify(k) + ':'
        first = false
        write(x, depth + 1)
      }
      out += '}'
    }
  }
  write(value, 0)
  return out
}

/**
 * JSON text as a value for code that walks it recursively (the engines read
 * tool results, arguments and documents that a producer recorded as strings, so
 * the depth bound on attributes does not cover what is inside them): `fallback`
 * when the text is absent, is not JSON or nests deeper than `maxDepth`, so such text is read
 * as plain text and no walk can overflow the stack.
 */
export function parseJson(text: string | undefined, fallback: unknown = undefined, maxDepth = MAX_JSON_DEPTH): unknown {
  if (!text) return fallback
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    return fallback
  }
  return jsonDepthExceeds(v, maxDepth) ? fallback : v
}
