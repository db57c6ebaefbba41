/** The lexical fallback: a layer whose model cannot load answers null, says why, and never throws. */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { SemanticModelStatus } from '@svc/shared/domain/semantic-model'
import { semanticLayer } from './layer.js'
import { MODEL_FILES, modelDir } from './model-files.js'

const tmp = mkdtempSync(join(tmpdir(), 'svc-semantic-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('semantic layer', () => {
  it('falls back when the model directory is missing: null embedder, status unavailable with the reason, told to subscribers', async () => {
    const layer = semanticLayer(join(tmp, 'missing'))
    const seen: SemanticModelStatus[] = []
    layer.subscribe((s) => seen.push(s))
    expect(layer.status().status).toBe('not_loaded')
    expect(await layer.embedder()).toBeNull()
    expect(await layer.embedder()).toBeNull()
    expect(layer.status()).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/ENOENT.*fetch:model/) })
    expect(seen.map((s) => s.status)).toEqual(['unavailable'])
    // A late subscriber hears the settled state at once.
    const late: string[] = []
    layer.subscribe((s) => late.push(s.status))
    expect(late).toEqual(['unavailable'])
  })

  it('refuses files that do not match their pinned sha256', async () => {
    const dir = join(tmp, 'tampered')
    rmSync(dir, { recursive: true, force: true })
    const { mkdirSync } = await import('node:fs')
    mkdirSync(dir)
    copyFileSync(join(modelDir(process.env.SVC_MODEL_DIR), MODEL_FILES.tokenizer.name), join(dir, MODEL_FILES.tokenizer.name))
    writeFileSync(join(dir, MODEL_FILES.onnx.name), 'not a model')
    const layer = semanticLayer(dir)
    expect(await layer.embedder()).toBeNull()
    expect(layer.status().reason).toMatch(/does not match its pinned sha256/)
  })

  it('loads the real model once per directory per process', async () => {
    const dir = modelDir(process.env.SVC_MODEL_DIR)
    const a = semanticLayer(dir)
    expect(semanticLayer(dir)).toBe(a)
    const e = await a.embedder()
    expect(e).not.toBeNull()
    expect(await a.embedder()).toBe(e)
    expect(a.status().status).toBe('loaded')
  }, 60_000)
})
