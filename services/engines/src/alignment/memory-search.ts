/** Top-k passage search in memory over local embeddings: the fixture evaluation and unit tests (the service searches ClickHouse). */
import { chunkText } from './chunk.js'
import { cosine, localEmbedding } from './embed.js'
import type { PolicyPassage } from './index.js'

export function memorySearch(docs: Array<{ doc_id: string; text: string }>) {
  const passages = docs.flatMap((d) => chunkText(d.text).map((c) => ({ doc_id: d.doc_id, chunk_index: c.index, text: c.text, v: localEmbedding(c.text) })))
  return async (texts: string[], k: number): Promise<PolicyPassage[][]> =>
    texts.map((t) => {
      const q = localEmbedding(t)
      return passages
        .map((p) => ({ doc_id: p.doc_id, chunk_index: p.chunk_index, text: p.text, similarity: cosine(q, p.v) }))
        .sort((a, b) => b.similarity - a.similarity || a.chunk_index - b.chunk_index)
        .slice(0, k)
    })
}
