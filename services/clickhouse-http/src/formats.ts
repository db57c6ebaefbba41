/**
 * Output formats: the Content-Type a ClickHouse server sends with each, and which
 * ones chdb can stream. chdb writes a streamed result chunk by chunk, each chunk as
 * if it were the whole result, so only formats without a header or an enclosing
 * document can go out that way (rows one after another); JSON, the WithNames
 * variants, Pretty, Parquet and the like are sent whole.
 */

const STREAMABLE = new Set(
  [
    'JSONEachRow', 'JSONLines', 'NDJSON', 'JSONStringsEachRow', 'JSONCompactEachRow', 'JSONCompactStringsEachRow',
    'TabSeparated', 'TSV', 'TabSeparatedRaw', 'TSVRaw', 'Raw', 'CSV', 'RowBinary', 'Native', 'LineAsString', 'Null',
  ].map((f) => f.toLowerCase()),
)

const BINARY = /^(native|rowbinary.*|parquet|arrow.*|orc|avro|protobuf.*|capnproto|msgpack|npy|bsoneachrow|rawblob)$/i

export const isStreamable = (format: string) => STREAMABLE.has(format.toLowerCase())

export function contentTypeOf(format: string): string {
  const f = format.toLowerCase()
  if (BINARY.test(f)) return 'application/octet-stream'
  if (f.startsWith('json') || f === 'ndjson') return 'application/json; charset=UTF-8'
  if (f.startsWith('tabseparated') || f.startsWith('tsv')) return 'text/tab-separated-values; charset=UTF-8'
  if (f.startsWith('csv')) return `text/csv; charset=UTF-8; header=${f.includes('withnames') ? 'present' : 'absent'}`
  if (f === 'xml') return 'application/xml; charset=UTF-8'
  return 'text/plain; charset=UTF-8'
}
