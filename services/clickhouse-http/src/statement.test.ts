import { describe, expect, it } from 'vitest'
import { analyzeStatement } from './statement.js'

describe('analyzeStatement', () => {
  it('names the statement by its first keyword, past comments and parentheses', () => {
    expect(analyzeStatement('select 1').kind).toBe('SELECT')
    expect(analyzeStatement('  -- why\n/* a /* nested */ comment */ # and this\nWITH 1 AS x SELECT x').kind).toBe('WITH')
    expect(analyzeStatement('(SELECT 1) UNION ALL (SELECT 2)').kind).toBe('(')
    expect(analyzeStatement('describe table t').kind).toBe('DESCRIBE')
    expect(analyzeStatement('drop table t').kind).toBe('DROP')
    expect(analyzeStatement('   ').kind).toBe('')
  })

  it('finds a second statement after a semicolon, but not one inside strings, identifiers or comments', () => {
    expect(analyzeStatement('SELECT 1; DROP TABLE t').secondStatementAt).toBe(8)
    expect(analyzeStatement('SELECT 1;').secondStatementAt).toBeNull()
    expect(analyzeStatement('SELECT 1; -- only a comment\n').secondStatementAt).toBeNull()
    expect(analyzeStatement("SELECT 'a;b', \"c;d\", `e;f`, $x$g;h$x$ -- ;i\n/* ; */").secondStatementAt).toBeNull()
    expect(analyzeStatement("SELECT 'it''s; \\' ;' ; SELECT 2").secondStatementAt).toBe(21)
  })

  it('reads the output FORMAT clause and not a column or function called format', () => {
    expect(analyzeStatement('SELECT 1 FORMAT JSONEachRow').outputFormat).toBe('JSONEachRow')
    expect(analyzeStatement('SELECT 1 FORMAT JSON SETTINGS max_threads = 1').outputFormat).toBe('JSON')
    expect(analyzeStatement('SELECT 1 format `CSV`;').outputFormat).toBe('CSV')
    expect(analyzeStatement('SELECT format FROM t').outputFormat).toBeNull()
    expect(analyzeStatement("SELECT format('{}', 1)").outputFormat).toBeNull()
    expect(analyzeStatement('SELECT (SELECT 1 FORMAT TSV)').outputFormat).toBeNull()
  })

  it("finds where an INSERT's data begins and where FROM INFILE fits", () => {
    const text = 'INSERT INTO t (a, b) FORMAT JSONCompactEachRow\n[1,"x"]\n'
    const st = analyzeStatement(text)
    expect(st.insert).toEqual({ format: 'JSONCompactEachRow', dataStart: text.indexOf('['), infileAt: text.indexOf('FORMAT') })
    const withSettings = 'INSERT INTO t SETTINGS async_insert = 0 FORMAT Native  \r\nDATA'
    expect(analyzeStatement(withSettings).insert).toEqual({ format: 'Native', dataStart: withSettings.indexOf('DATA'), infileAt: withSettings.indexOf('SETTINGS') })
    expect(analyzeStatement('INSERT INTO t VALUES (1, \'a;b\')').insert?.format).toBe('Values')
    expect(analyzeStatement('INSERT INTO t SELECT * FROM u FORMAT JSON').insert).toBeNull()
  })

  it('stops at the data: binary rows after the format name are never read as SQL', () => {
    const st = analyzeStatement("INSERT INTO t FORMAT RowBinary\n\u0001'\u0000;DROP")
    expect(st.insert?.format).toBe('RowBinary')
    expect(st.secondStatementAt).toBeNull()
    expect(st.incomplete).toBe(false)
  })

  it('sees INTO OUTFILE and FROM INFILE', () => {
    expect(analyzeStatement("SELECT 1 INTO OUTFILE '/tmp/x'").intoOutfile).toBe(true)
    expect(analyzeStatement("INSERT INTO t FROM INFILE '/etc/passwd' FORMAT CSV").fromInfile).toBe(true)
    expect(analyzeStatement("SELECT 'INTO OUTFILE'").intoOutfile).toBe(false)
  })

  it('says when the text runs off mid-string or mid-comment, or was cut', () => {
    expect(analyzeStatement("SELECT 'open").incomplete).toBe(true)
    expect(analyzeStatement('SELECT 1 /* open').incomplete).toBe(true)
    expect(analyzeStatement('SELECT 1', false).incomplete).toBe(true)
  })
})
