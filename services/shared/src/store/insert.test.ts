import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.js'
import { fuzzSeed, rng } from '../test-support/fuzz.js'
import { createLogger } from '../log.js'
import { createStore } from './index.js'
import { EncodedRows, encodeRows, encoderFor, NotEncodable, RowBinaryWriter } from './row-binary.js'
import type { Store } from './types.js'

/** Every column type row-binary.ts writes, as the service's tables spell them. */
const COLUMNS: Array<[string, string]> = [
  ['id', 'UInt32'], ['s', 'String'], ['lc', 'LowCardinality(String)'], ['u8', 'UInt8'], ['u16', 'UInt16'], ['u64', 'UInt64'],
  ['i8', 'Int8'], ['i32', 'Int32'], ['i64', 'Int64'], ['f32', 'Float32'], ['f64', 'Float64'], ['uuid', 'UUID'], ['d', 'Date'],
  ['dt', "DateTime('UTC')"], ['dt_plain', 'DateTime'], ['ms', "DateTime64(3, 'UTC')"], ['ns', "DateTime64(9, 'UTC')"],
  ['attrs', 'Map(String, String)'], ['lc_map', 'Map(LowCardinality(String), String)'], ['tags', 'Array(LowCardinality(String))'],
  ['nums', 'Array(UInt32)'], ['vec', 'Array(Float32)'], ['times', "Array(DateTime64(3, 'UTC'))"], ['maybe', "Nullable(DateTime64(3, 'UTC'))"],
]
const NAMES = COLUMNS.map(([n]) => n)
const TYPES = COLUMNS.map(([, t]) => t)

const row = (id: number, over: Record<string, unknown> = {}): Record<string, unknown> => ({
  id, s: '', lc: 'x', u8: 0, u16: 0, u64: 0, i8: 0, i32: 0, i64: 0, f32: 0, f64: 0, uuid: '00000000-0000-0000-0000-000000000000', d: '1970-01-01',
  dt: 0, dt_plain: 0, ms: '1732000000123', ns: '1732000000123456789', attrs: {}, lc_map: {}, tags: [], nums: [], vec: [], times: [], maybe: null, ...over,
})

/** Values at the edges of what each column takes, in the forms the service's rows give them. */
const EDGES = [
  row(1),
  row(2, {
    s: `it's \\ "quoted"\nnew\tline ünïcødé 漢字 😀 ${'long '.repeat(60)}`, lc: 'gen_ai.chat', u8: 255, u16: 65535, u64: '18446744073709551615',
    i8: -128, i32: -2147483648, i64: '-9223372036854775808', f32: 0.1, f64: -1.5e-300, uuid: '0011AABB-4455-6677-8899-aabbccddeeff', d: '2149-06-06',
    dt: 4294967295, dt_plain: '1732000000', ms: 1732000000999, ns: '2286000000000000001', attrs: { 'gen_ai.system': 'openai', '': '', 'k"\n': 'v\\' },
    lc_map: { a: '1', b: '' }, tags: ['a', 'b', ''], nums: [0, 1, 4294967295], vec: [0.25, -1, 3.4e38], times: ['1732000000001', 1732000000002], maybe: '1732000000123',
  }),
  row(3, { u8: true, u64: 9007199254740991, i64: 9007199254740991, f64: 123456789.125, s: 'x'.repeat(200), attrs: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, `v${i}`])) }),
  row(4, { u8: false, i64: -1, u64: '0', dt: 1, ms: '1000000000000', ns: '1000000000000000000' }),
]

/** Forms JSON takes but with a meaning of its own (a date's text, seconds in a DateTime64, a null as the default): binary leaves them to JSON. */
const JSON_ONLY = [
  row(10, { ms: '2026-01-02 03:04:05.123' }),
  row(11, { ns: '17' }),
  row(12, { ms: '1732000000' }),
  row(13, { f64: null }),
  row(14, { u64: 1.5 }),
  row(15, { dt: '2026-01-02 03:04:05' }),
  row(16, { u8: 256 }),
  row(17, { s: 5 }),
]

let dir: string
let store: Store
const create = (t: string, columns = COLUMNS) =>
  store.command(`CREATE TABLE {t:Identifier} (${columns.map(([n, ty]) => `${n} ${ty}`).join(', ')}) ENGINE = MergeTree ORDER BY tuple()`, { t })
const rowsOf = (t: string) => store.query(`SELECT * FROM {t:Identifier} ORDER BY id`, { t })
/** The same rows through ClickHouse's JSON parser: the reference the binary rows must store the same as. */
const insertAsJson = (t: string, rows: Array<Record<string, unknown>>) =>
  store.command(`INSERT INTO {t:Identifier} (${NAMES.join(', ')}) FORMAT JSONCompactEachRow ${rows.map((r) => JSON.stringify(NAMES.map((c) => r[c]))).join('\n')}`, { t })
const encode = (rows: Array<Record<string, unknown>>) => encodeRows(new RowBinaryWriter(16), NAMES, TYPES, TYPES.map((t) => encoderFor(t)!), rows)

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-insert-'))
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), createLogger({ level: 'silent' }))
})
afterAll(async () => {
  await store?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('row-binary encoders', () => {
  it('write every column type of the service tables and refuse the rest', () => {
    for (const t of TYPES) expect(encoderFor(t), t).not.toBeNull()
    for (const t of ['SimpleAggregateFunction(sum, UInt64)', 'AggregateFunction(groupBitmap, UInt64)', 'Map(UInt8, String)', 'Decimal(10, 2)', 'Enum8(\'a\' = 1)'])
      expect(encoderFor(t), t).toBeNull()
  })

  it('write a UUID as ClickHouse keeps it: two little-endian halves', () => {
    const w = new RowBinaryWriter(4)
    encoderFor('UUID')!(w, '00112233-4455-6677-8899-aabbccddeeff')
    expect(w.take().toString('hex')).toBe('7766554433221100ffeeddccbbaa9988')
  })

  it('give a string over 127 bytes a two-byte length, and grow the buffer as it goes', () => {
    const w = new RowBinaryWriter(4)
    encoderFor('String')!(w, 'é'.repeat(100))
    expect([...w.take().subarray(0, 2)]).toEqual([200 & 0x7f | 0x80, 1])
    expect(w.take().length).toBe(202)
  })

  it('write a 64-bit integer from its digits exactly as BigInt does, at every length up to 2^63', () => {
    const r = rng(fuzzSeed(7))
    const cases = ['0', '1', '9007199254740993', '999999999999999999', '9223372036854775807', '1732000000123456789']
    for (let i = 0; i < 2000; i++) {
      const digits = 1 + r.int(19)
      let s = String(1 + r.int(9))
      while (s.length < digits) s += String(r.int(10))
      if (BigInt(s) < 2n ** 63n) cases.push(s)
    }
    for (const s of cases) {
      const w = new RowBinaryWriter(8)
      w.int64Digits(s)
      const want = Buffer.alloc(8)
      want.writeBigUInt64LE(BigInt(s))
      expect(w.take().toString('hex'), s).toBe(want.toString('hex'))
    }
  })

  it('refuse each value whose JSON means something else', () => {
    for (const r of JSON_ONLY) expect(() => encode([r]), JSON.stringify(r)).toThrow(NotEncodable)
    expect(() => encode(EDGES)).not.toThrow()
  })
})

describe('store.insert as RowBinary', () => {
  it('stores exactly what the same rows store as JSON', async () => {
    await create('binary')
    await create('json')
    await store.insert('binary', EDGES)
    await insertAsJson('json', EDGES)
    const got = await rowsOf('binary')
    expect(got).toHaveLength(EDGES.length)
    expect(got).toEqual(await rowsOf('json'))
  })

  it('stores rows encoded as they came (EncodedRows) as the same rows store as JSON: a refused row leaving nothing, a flag set after, rows dropped, parts joined', async () => {
    const withFlag: Array<[string, string]> = [...COLUMNS, ['flag', 'UInt8']]
    await create('encoded', withFlag)
    await create('encoded_json', withFlag)
    const encoding = (await store.rowEncoding('encoded', [...NAMES, 'flag']))!
    const first = new EncodedRows(encoding, 16) // grows as it goes
    for (const r of EDGES) {
      first.push({ ...r, flag: 1 })
      expect(() => first.push({ ...JSON_ONLY[0], flag: 1 })).toThrow(NotEncodable)
    }
    first.setLastByte(1, 0)
    first.keep([0, 1, 3])
    first.setLastByte(2, 7) // row 3 of EDGES, now the third kept
    const second = new EncodedRows(encoding)
    second.push({ ...row(20), flag: 1 })
    await store.insertEncoded('encoded', [first, second])
    const reference = [{ ...EDGES[0], flag: 1 }, { ...EDGES[1], flag: 0 }, { ...EDGES[3], flag: 7 }, { ...row(20), flag: 1 }]
    await store.command(`INSERT INTO encoded_json (${[...NAMES, 'flag'].join(', ')}) FORMAT JSONCompactEachRow ${reference.map((r) => JSON.stringify([...NAMES, 'flag'].map((c) => (r as Record<string, unknown>)[c]))).join('\n')}`)
    const got = await rowsOf('encoded')
    expect(got.map((r) => [r.id, r.flag])).toEqual([[1, 1], [2, 0], [4, 7], [20, 1]])
    expect(got).toEqual(await rowsOf('encoded_json'))
  })

  it('sends an insert with a value binary cannot mean the same way as JSON, whole', async () => {
    await create('fallback')
    await create('fallback_json')
    const rows = [row(1), ...JSON_ONLY.filter((r) => r.u64 !== 1.5 && r.u8 !== 256 && r.s !== 5)]
    await store.insert('fallback', rows)
    await insertAsJson('fallback_json', rows)
    expect(await rowsOf('fallback')).toEqual(await rowsOf('fallback_json'))
  })

  it('sends rows whose keys differ from the first row’s as JSON by name, even with as many keys and a column missing', async () => {
    const t = 'shapes'
    await create(t, [['id', 'UInt32'], ['a', 'String'], ['b', 'String'], ['c', "String DEFAULT 'dflt'"]])
    await store.insert(t, [{ id: 1, a: 'x', b: 'y' }, { id: 2, a: 'x', c: 'z' }, { id: 3, a: 'x', b: undefined, c: 'w' }])
    expect(await rowsOf(t)).toEqual([
      { id: 1, a: 'x', b: 'y', c: 'dflt' },
      { id: 2, a: 'x', b: '', c: 'z' },
      { id: 3, a: 'x', b: '', c: 'w' },
    ])
  })

  it('never misreads a table whose column changed type after it was read: at most one insert fails, and the next stores the rows right', async () => {
    const t = 'changing'
    await create(t, [['id', 'UInt32'], ['n', 'UInt32']])
    await store.insert(t, [{ id: 1, n: 7 }])
    await store.command('DROP TABLE changing')
    await create(t, [['id', 'UInt32'], ['n', 'Int64']])
    let failures = 0
    const insertRetryingOnce = (r: Record<string, unknown>) => store.insert(t, [r]).catch(() => (failures++, store.insert(t, [r])))
    await insertRetryingOnce({ id: 2, n: -8 })
    await insertRetryingOnce({ id: 3, n: 9 })
    expect(failures).toBeLessThanOrEqual(1)
    expect(await rowsOf(t)).toEqual([{ id: 2, n: -8 }, { id: 3, n: 9 }])
    expect(readdirSync(join(dir, 'clickhouse-inserts'))).toEqual([])
  })

  it('takes a column added after the table was first read', async () => {
    await create('growing', [['id', 'UInt32']])
    await store.insert('growing', [{ id: 1 }])
    await store.command('ALTER TABLE growing ADD COLUMN note String')
    await store.insert('growing', [{ id: 2, note: 'new' }])
    expect(await rowsOf('growing')).toEqual([{ id: 1, note: '' }, { id: 2, note: 'new' }])
  })

  it('leaves copies of a key within one insert to the merges, as copies in different parts (optimize_on_insert off)', async () => {
    await store.command('CREATE TABLE copies (id UInt32, v UInt32) ENGINE = ReplacingMergeTree(v) ORDER BY id')
    await store.insert('copies', [{ id: 1, v: 1 }, { id: 1, v: 2 }, { id: 2, v: 1 }])
    expect(await store.query('SELECT id, v FROM copies ORDER BY id, v')).toEqual([{ id: 1, v: 1 }, { id: 1, v: 2 }, { id: 2, v: 1 }])
    // What every read of such a table does: the newest copy per key.
    expect(await store.query('SELECT id, v FROM copies FINAL ORDER BY id')).toEqual([{ id: 1, v: 2 }, { id: 2, v: 1 }])
  })

  it('runs under chdb beside a long read, not behind it (inserts have a connection of their own)', async () => {
    await create('beside', [['id', 'UInt32']])
    // The first insert into a table reads its columns on the store's own connection.
    await store.insert('beside', [{ id: 1 }])
    const done: string[] = []
    const read = store.query('SELECT count() AS n FROM numbers({n:UInt64}) WHERE sipHash64(number) % 7 = 1', { n: 60_000_000 }).then(() => done.push('read'))
    await store.insert('beside', [{ id: 2 }]).then(() => done.push('insert'))
    await read
    expect(done).toEqual(['insert', 'read'])
    expect(await rowsOf('beside')).toEqual([{ id: 1 }, { id: 2 }])
  })
})
