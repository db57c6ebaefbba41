/**
 * The local sentence-embedding model in process: all-MiniLM-L6-v2 (int8 ONNX) run by
 * onnxruntime-node on one intra-op thread, tokenized by @huggingface/tokenizers.
 * Each text is cut to MAX_TOKENS tokens, and the token vectors are mean-pooled and
 * L2-normalised (what sentence-transformers does for this model). Vectors are cached
 * by text (LRU), so a document or tool result repeated across traces is embedded once.
 *
 * `embed` takes a batch, but each distinct uncached text gets a forward pass of its
 * own. The model is dynamically quantised: int8 scales are computed over the whole
 * input tensor, so a text's vector changes (cosine ~0.99 to itself) with the other
 * rows of a batch, padded or not. A vector must not depend on which batch first
 * cached it (a re-analysed trace would judge differently), and batching saved only
 * ~12% CPU here (5.6 against 6.4 ms per sentence measured on the shared 2-core
 * machine), so determinism wins.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Tokenizer } from '@huggingface/tokenizers'
import { InferenceSession, Tensor } from 'onnxruntime-node'
import { oneAtATime } from '@svc/shared/concurrency'
import { groupBy } from '@svc/shared/group-by'
import { sha256 } from './fetch-model.js'
import { Lru } from './lru.js'
import { MAX_TOKENS, MODEL_DIMS, MODEL_FILES, MODEL_LABEL } from './model-files.js'
import type { Embedder } from './types.js'

/**
 * Characters kept before tokenizing (after whitespace is collapsed): a token spans
 * fewer than 16 characters in practice, so the first MAX_TOKENS tokens survive, and a
 * megabyte of tool output is not tokenized only to be cut.
 */
const MAX_CHARS = MAX_TOKENS * 16

export interface SentenceModelOptions {
  /** Vectors kept in the cache (384 floats each, ~1.5 kB). */
  cacheSize?: number
}

export class SentenceModel implements Embedder {
  readonly model = MODEL_LABEL
  readonly dims = MODEL_DIMS
  readonly cache: Lru<Float32Array>
  /** One forward pass at a time: the model gets one core, whatever the callers' concurrency. */
  private readonly lane = oneAtATime()
  private readonly clsId: number
  private readonly sepId: number

  private constructor(
    private readonly session: InferenceSession,
    private readonly tokenizer: Tokenizer,
    opts: SentenceModelOptions,
  ) {
    this.cache = new Lru(opts.cacheSize ?? 20_000)
    this.clsId = tokenizer.token_to_id('[CLS]') ?? 101
    this.sepId = tokenizer.token_to_id('[SEP]') ?? 102
  }

  /** Loads the model from `dir`, checking both files against their pinned sha256 first. Throws on any failure. */
  static async load(dir: string, opts: SentenceModelOptions = {}): Promise<SentenceModel> {
    const read = (f: { name: string; sha256: string }) => {
      const bytes = readFileSync(join(dir, f.name))
      if (sha256(bytes) !== f.sha256) throw new Error(`${join(dir, f.name)} does not match its pinned sha256`)
      return bytes
    }
    const tokenizerJson = JSON.parse(read(MODEL_FILES.tokenizer).toString('utf8')) as object
    const onnx = read(MODEL_FILES.onnx)
    const session = await InferenceSession.create(onnx, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' })
    return new SentenceModel(session, new Tokenizer(tokenizerJson, { do_lower_case: true }), opts)
  }

  /** Token ids of a text: [CLS] ... [SEP], at most MAX_TOKENS. */
  tokens(text: string): number[] {
    const ids = this.tokenizer.encode(text.replace(/\s+/g, ' ').trim().slice(0, MAX_CHARS)).ids
    if (ids.length <= MAX_TOKENS) return ids
    return [...ids.slice(0, MAX_TOKENS - 1), this.sepId]
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out = new Array<Float32Array>(texts.length)
    texts.forEach((t, i) => {
      const hit = this.cache.get(t)
      if (hit) out[i] = hit
    })
    const todo = groupBy(texts.keys(), (i) => (out[i] ? undefined : texts[i]!))
    for (const [t, at] of todo) {
      const v = await this.lane(() => this.forward(this.tokens(t)))
      this.cache.set(t, v)
      for (const k of at) out[k] = v
    }
    return out
  }

  private async forward(tokens: number[]): Promise<Float32Array> {
    const n = tokens.length
    const feeds: Record<string, Tensor> = {
      input_ids: new Tensor('int64', BigInt64Array.from(tokens, (id) => BigInt(id)), [1, n]),
      attention_mask: new Tensor('int64', new BigInt64Array(n).fill(1n), [1, n]),
      token_type_ids: new Tensor('int64', new BigInt64Array(n), [1, n]),
    }
    const result = await this.session.run(feeds)
    const hidden = (result.last_hidden_state ?? result[this.session.outputNames[0]!]!).data as Float32Array
    const d = this.dims
    const v = new Float32Array(d)
    for (let c = 0; c < n; c++) for (let k = 0; k < d; k++) v[k]! += hidden[c * d + k]!
    // Mean then normalise = normalise the sum: the 1/length factor cancels.
    let norm = 0
    for (let k = 0; k < d; k++) norm += v[k]! * v[k]!
    norm = Math.sqrt(norm) || 1
    for (let k = 0; k < d; k++) v[k]! /= norm
    return v
  }

  /** Releases the ONNX session (tests; a process keeps its model until it exits). */
  async release(): Promise<void> {
    await this.session.release()
  }
}
