/**
 * Writes `s` into `buf` from `pos` one byte per character while it is ASCII, which
 * most strings the hot paths write are (ids, names, attribute keys and values): a
 * loop costs less than a call into the native UTF-8 encoder. Answers the position
 * after it, or -1 at the first character that is not ASCII (the bytes written
 * before it are the caller's to overwrite). The caller has room for s.length bytes.
 * The writers of RowBinary (store/row-binary.ts) and of SpanBatch records
 * (bus/span-batch-writer.ts) both put their length prefix before these bytes.
 */
export function writeAscii(s: string, buf: Buffer, pos: number): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x80) return -1
    buf[pos++] = c
  }
  return pos
}
