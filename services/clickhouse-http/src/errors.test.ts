import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from 'chdb'
import { describe, expect, it } from 'vitest'
import { CODES, exceptionText, fromChdb, httpStatusFor } from './errors.js'

describe('ClickHouse exceptions', () => {
  it("uses ClickHouse's own code for every name (errorCodeToName)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-ch-codes-'))
    const s = new Session(dir)
    try {
      const res = await s.queryAsync(`SELECT ${Object.values(CODES).map((c) => `errorCodeToName(${c})`).join(', ')}`, { format: 'JSONCompactEachRow' })
      expect(res.json<string[]>()).toEqual(Object.keys(CODES))
    } finally {
      s.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("reads chdb's message, down to the innermost of the copies it wraps some in", () => {
    const e = fromChdb(new Error("Code: 73. DB::Exception: Code: 73. DB::Exception: Unknown format Nope. Maybe you meant: ['One','Npy']. (UNKNOWN_FORMAT) (version 26.7.2.1). (UNKNOWN_FORMAT) (version 26.7.2.1). (UNKNOWN_FORMAT)"))
    expect([e.code, e.codeName, e.message]).toEqual([73, 'UNKNOWN_FORMAT', "Unknown format Nope. Maybe you meant: ['One','Npy']"])
    expect(exceptionText(e, '26.7.2.1')).toBe("Code: 73. DB::Exception: Unknown format Nope. Maybe you meant: ['One','Npy']. (UNKNOWN_FORMAT) (version 26.7.2.1)")
    const plain = fromChdb(new Error('something else broke'))
    expect([plain.code, plain.codeName]).toEqual([1002, 'UNKNOWN_EXCEPTION'])
  })

  it("answers each code with the status ClickHouse's exceptionCodeToHTTPStatus gives it", () => {
    expect(httpStatusFor(62)).toBe(400) // SYNTAX_ERROR
    expect(httpStatusFor(60)).toBe(404) // UNKNOWN_TABLE
    expect(httpStatusFor(73)).toBe(404) // UNKNOWN_FORMAT
    expect(httpStatusFor(194)).toBe(401) // REQUIRED_PASSWORD
    expect(httpStatusFor(516)).toBe(403) // AUTHENTICATION_FAILED
    expect(httpStatusFor(159)).toBe(408) // TIMEOUT_EXCEEDED
    expect(httpStatusFor(229)).toBe(413) // QUERY_IS_TOO_LARGE
    expect(httpStatusFor(48)).toBe(501) // NOT_IMPLEMENTED
    expect(httpStatusFor(164)).toBe(500) // READONLY: not in the server's lists
    expect(httpStatusFor(396)).toBe(500) // TOO_MANY_ROWS_OR_BYTES
  })
})
