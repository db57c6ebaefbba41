/** Top-k passage search in memory: the fixture evaluation and unit tests (the service searches ClickHouse). */
import type { Embedder } from '../semantic/types.js'
import { chunkText } from './chunk.js'
import { cosine, lexicalEmbedder } from './embed.js'
import type { PolicyPassage } from './index.js'

export function memorySearch(docs: Array<{ doc_id: string; text: string }>, embedder: Embedder = lexicalEmbedder) {
  const chunks = docs.flatMap((d) => chunkText(d.text).map((c) => ({ doc_id: d.doc_id, chunk_index: c.index, text: c.text })))
  // Embedded on the first search.
  let vectors: Promise<Float32Array[]> | null = null
  return async (texts: string[], k: number): Promise<PolicyPassage[][]> => {
    vectors ??= embedder.embed(chunks.map((c) => c.text))
    const [pv, qs] = [await vectors, await embedder.embed(texts)]
    return qs.map((q) =>
      chunks
        .map((p, i) => ({ doc_id: p.doc_id, chunk_index: p.chunk_index, text: p.text, similarity: cosine(q, pv[i]!) }))
        .sort((a, b) => b.similarity - a.similarity || a.chunk_index - b.chunk_index)
        .slice(0, k),
    )
  }
}
