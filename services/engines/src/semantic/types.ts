/**
 * One interface for every embedding the engines use: the local sentence model
 * (sentence-model.ts), the lexical hash embedding (alignment/embed.ts) and an
 * organization's provider model (alignment/provider-embedder.ts).
 */
export interface Embedder {
  /** Stored with each vector (alignment_chunks_v1.embedding_model): `local:...` or `provider:model`. */
  readonly model: string
  readonly dims: number
  /** One L2-normalised vector per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>
}

/** Dot product of two L2-normalised vectors: their cosine similarity. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!
  return s
}
