/**
 * How the store sends an insert: the rows' format and the way their bytes travel.
 *
 * Format: rows that give every column go as RowBinaryWithNamesAndTypes
 * (row-binary.ts), with JSON as the fallback for a column type or a value that has
 * no binary form there; rows that leave a column out (to get its DEFAULT) go as
 * JSONEachRow, which cannot be positional.
 *
 * Transport: chdb takes an inline INSERT's data as part of the statement text,
 * which its SQL front end scans before the format parser sees it; INSERT ... FROM
 * INFILE hands the bytes to the format parser directly (measured on the
 * benchmark's spans, JSONEachRow, 20k-row inserts into spans_v1: ~20% more rows/s
 * for the same CPU). A server gets the data as the request body, the statement in
 * the URL, which is already that direct path.
 */
import { mkdirSync } from 'node:fs'
import { unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { finished } from 'node:stream/promises'
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import { oneAtATime } from '../concurrency.js'
import { encodeRows, encoderFor, IDENTIFIER, NotEncodable, rowEncoding, RowBinaryWriter, type EncodedRows, type Encode, type RowEncoding } from './row-binary.js'

/** A writer's buffer grown past this by one insert is let go rather than kept for the next. */
const MAX_KEPT_WRITER_BYTES = 16 << 20

/** A table's columns as RowBinary needs them: each one's type and encoder (null: a type row-binary.ts cannot write). */
type TableColumns = Map<string, { type: string; encode: Encode | null }>

export interface Insert {
  rows(table: string, rows: Array<Record<string, unknown>>, settings: ClickHouseSettings | undefined): Promise<void>
  /** Rows encoded beforehand with `encoding`'s result, in one insert. */
  encoded(table: string, parts: readonly EncodedRows[], settings: ClickHouseSettings | undefined): Promise<void>
  /** How `columns` of `table` are written as RowBinary, or null when one of them has no binary form. */
  encoding(table: string, columns: readonly string[]): Promise<RowEncoding | null>
}

/**
 * Inserts through `client`. Under chdb, `chdb.dir` holds each insert's file while it
 * runs, and `chdb.client` (a connection of its own) runs them.
 */
export function createInsert(client: ClickHouseClient, chdb: { dir?: string; client?: ClickHouseClient }): Insert {
  const insertDir = chdb.dir
  if (insertDir) mkdirSync(insertDir, { recursive: true })
  let insertSeq = 0
  // The insert connection runs one statement at a time; files are written concurrently (the batch writer keeps two
  // inserts in flight) and their statements queued here as they are ready, so the next file is written meanwhile.
  const statements = oneAtATime()
  const tables = new Map<string, Promise<TableColumns>>()
  // One writer's buffer serves the inserts one after another; an insert that finds it taken gets its own.
  let idleWriter: RowBinaryWriter | undefined = new RowBinaryWriter()

  const columnsOf = (table: string): Promise<TableColumns> => {
    let known = tables.get(table)
    if (!known) {
      known = client
        .query({ query: 'SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = {table:String}', query_params: { table }, format: 'JSONEachRow' })
        .then((rs) => rs.json<{ name: string; type: string }>())
        .then((cols) => new Map(cols.map((c) => [c.name, { type: c.type, encode: encoderFor(c.type) }])))
      known.catch(() => tables.delete(table))
      tables.set(table, known)
    }
    return known
  }

  /** Each column's type and encoder, or null when a column has no binary form. */
  const binaryColumns = async (table: string, columns: readonly string[]): Promise<{ types: string[]; encoders: Encode[] } | null> => {
    let known = await columnsOf(table)
    if (columns.some((c) => !known.has(c))) {
      // A column added since the table was read.
      tables.delete(table)
      known = await columnsOf(table)
    }
    const types: string[] = []
    const encoders: Encode[] = []
    for (const c of columns) {
      const col = known.get(c)
      if (!col?.encode) return null
      types.push(col.type)
      encoders.push(col.encode)
    }
    return { types, encoders }
  }

  /** The rows as RowBinaryWithNamesAndTypes, or null when a column or a value has no binary form there. */
  const binaryRows = async (table: string, columns: string[], rows: Array<Record<string, unknown>>, writer: RowBinaryWriter): Promise<Buffer | null> => {
    const binary = await binaryColumns(table, columns)
    if (!binary) return null
    try {
      return encodeRows(writer, columns, binary.types, binary.encoders, rows)
    } catch (err) {
      if (err instanceof NotEncodable) return null
      throw err
    }
  }

  const send = async (table: string, columns: readonly string[] | null, body: Buffer | string | Buffer[], format: string, settings: ClickHouseSettings | undefined): Promise<void> => {
    if (!insertDir) {
      const into = `INSERT INTO {table:Identifier} ${columns ? `(${columns.join(', ')}) ` : ''}`
      const res = await client.exec({ query: `${into}FORMAT ${format}`, query_params: { table }, values: Readable.from(Array.isArray(body) ? body : [body]), clickhouse_settings: settings })
      res.stream.resume()
      await finished(res.stream)
      return
    }
    const file = join(insertDir, `${process.pid}-${++insertSeq}.data`)
    await writeFile(file, body)
    try {
      // No query parameter here: chdb runs every statement with parameters one at a time across the process (it
      // binds them as session state), so an insert bound the table would wait behind every read. The table and
      // columns are checked identifiers, the file's path this process's own.
      if (!IDENTIFIER.test(table)) throw new Error(`not a table name: ${JSON.stringify(table)}`)
      const into = `INSERT INTO ${table} ${columns ? `(${columns.join(', ')}) ` : ''}`
      await statements(() => (chdb.client ?? client).command({ query: `${into}FROM INFILE ${sqlLiteral(file)} FORMAT ${format}`, clickhouse_settings: settings }))
    } finally {
      await unlink(file).catch(() => {})
    }
  }

  const checkedColumns = (columns: readonly string[]) => {
    for (const c of columns) if (!IDENTIFIER.test(c)) throw new Error(`not a column name: ${JSON.stringify(c)}`)
  }

  return {
    async rows(table, rows, settings) {
      const columns = Object.keys(rows[0]!)
      checkedColumns(columns)
      const writer = idleWriter ?? new RowBinaryWriter()
      idleWriter = undefined
      try {
        // Binary rows are positional: every row must have exactly the first row's keys. Each row having as many keys is
        // checked here (cheap); that none of the columns is missing or undefined, by the encoders, which refuse undefined.
        const binary = sameKeyCount(rows, columns.length) ? await binaryRows(table, columns, rows, writer) : null
        if (binary) await send(table, columns, binary, 'RowBinaryWithNamesAndTypes', settings)
        else if (samePresentColumns(rows, columns)) await send(table, columns, jsonLines(rows, (r) => JSON.stringify(columns.map((c) => r[c]))), 'JSONCompactEachRow', settings)
        else await send(table, null, jsonLines(rows, (r) => JSON.stringify(r)), 'JSONEachRow', settings)
      } catch (err) {
        // A migration may have changed the table since its columns were read.
        tables.delete(table)
        throw err
      } finally {
        if (writer.buf.length <= MAX_KEPT_WRITER_BYTES) idleWriter = writer
      }
    },

    async encoded(table, parts, settings) {
      const { encoding } = parts[0]!
      if (parts.some((p) => !p.encoding.header.equals(encoding.header))) throw new Error('one insert takes rows of one encoding')
      try {
        await send(table, encoding.columns, [encoding.header, ...parts.map((p) => p.body())], 'RowBinaryWithNamesAndTypes', settings)
      } catch (err) {
        tables.delete(table)
        throw err
      }
    },

    async encoding(table, columns) {
      checkedColumns(columns)
      const binary = await binaryColumns(table, columns)
      return binary && rowEncoding(columns, binary.types, binary.encoders)
    },
  }
}

/** Whether every row has `n` keys (a twentieth of samePresentColumns' cost on span rows). */
function sameKeyCount(rows: Array<Record<string, unknown>>, n: number): boolean {
  for (const r of rows) {
    let k = 0
    for (const _ in r) k++
    if (k !== n) return false
  }
  return true
}

/** Whether every row has exactly these keys, none of them undefined (as many keys, and each of these defined). */
function samePresentColumns(rows: Array<Record<string, unknown>>, columns: string[]): boolean {
  return sameKeyCount(rows, columns.length) && rows.every((r) => columns.every((c) => r[c] !== undefined))
}

function jsonLines<Row>(rows: Row[], line: (r: Row) => string): string {
  let body = ''
  for (const r of rows) body += line(r) + '\n'
  return body
}

/** A string literal for SQL: only for text this process made itself (INFILE takes no query parameter). */
const sqlLiteral = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
