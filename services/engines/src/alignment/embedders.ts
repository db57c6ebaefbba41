/**
 * The embedding models policy search can use, and which one embeds a document now:
 * the organization's provider model when its credential has one, else the local
 * sentence model (semantic/), else, when that model cannot load, the lexical hash
 * embedding (embed.ts). A provider that fails while embedding falls back to the local
 * choice, so one outage cannot stall the document topic.
 */
import type { Embedder } from '../semantic/types.js'
import { lexicalEmbedder } from './embed.js'

export interface PolicyEmbedders {
  /** The organization's provider model, or null. */
  provider(orgId: string): Embedder | null
  /** The local sentence model when it loads, else the lexical embedding. */
  local(): Promise<Embedder>
}

/** Embedders without a provider: the given local model (the sentence model in tests and the evaluation), else lexical. */
export const localOnly = (local: Embedder | null = null): PolicyEmbedders => ({ provider: () => null, local: async () => local ?? lexicalEmbedder })

/** Passages embedded per provider call. */
const EMBED_BATCH = 64

async function embedAll(embedder: Embedder, texts: string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = []
  for (let i = 0; i < texts.length; i += EMBED_BATCH) out.push(...(await embedder.embed(texts.slice(i, i + EMBED_BATCH))))
  return out
}

/**
 * Embeds a document's passages with the organization's current model. `error` says
 * when the provider failed and the local model stood in ('' otherwise); a failing
 * local model throws.
 */
export async function embedPassages(embedders: PolicyEmbedders, orgId: string, texts: string[]): Promise<{ embedder: Embedder; vectors: Float32Array[]; error: string }> {
  const provider = embedders.provider(orgId)
  if (provider) {
    try {
      return { embedder: provider, vectors: await embedAll(provider, texts), error: '' }
    } catch (err) {
      const local = await embedders.local()
      const error = `${provider.model} failed (${err instanceof Error ? err.message : String(err)}); embedded with ${local.model} instead`.slice(0, 1000)
      return { embedder: local, vectors: await embedAll(local, texts), error }
    }
  }
  const local = await embedders.local()
  return { embedder: local, vectors: await embedAll(local, texts), error: '' }
}
