/**
 * Policy documents into passages for embedding: paragraphs (blank-line separated,
 * Markdown headings start a new one and are carried as the passage's context),
 * long paragraphs cut at sentence ends, short neighbours of one section merged, so
 * a passage is roughly 200-1,000 characters of one topic.
 */
import { sentences } from '../reliability/text.js'

export const CHUNK_TARGET = 800
export const CHUNK_MAX = 1200
export const MAX_CHUNKS = 2000

export interface Chunk {
  index: number
  text: string
}

export function chunkText(text: string): Chunk[] {
  const blocks: Array<{ heading: string; body: string }> = []
  let heading = ''
  for (const para of text.replace(/\r\n?/g, '\n').split(/\n\s*\n/)) {
    const lines = para.split('\n').map((l) => l.trim()).filter(Boolean)
    const body: string[] = []
    for (const l of lines) {
      const h = /^#{1,6}\s+(.*)$/.exec(l)
      if (h) {
        if (body.length) blocks.push({ heading, body: body.splice(0).join('\n') })
        heading = h[1]!.trim()
      } else body.push(l)
    }
    if (body.length) blocks.push({ heading, body: body.join('\n') })
  }
  // Cut long blocks at sentence ends.
  const pieces: Array<{ heading: string; body: string }> = []
  for (const b of blocks) {
    if (b.body.length <= CHUNK_MAX) {
      pieces.push(b)
      continue
    }
    let cur = ''
    for (const s of sentences(b.body)) {
      for (let i = 0; i < s.length; i += CHUNK_MAX) {
        const part = s.slice(i, i + CHUNK_MAX)
        if (cur && cur.length + part.length + 1 > CHUNK_TARGET) {
          pieces.push({ heading: b.heading, body: cur })
          cur = ''
        }
        cur = cur ? `${cur} ${part}` : part
      }
    }
    if (cur) pieces.push({ heading: b.heading, body: cur })
  }
  // Merge short neighbours of one section.
  const merged: Array<{ heading: string; body: string }> = []
  for (const p of pieces) {
    const last = merged[merged.length - 1]
    if (last && last.heading === p.heading && last.body.length + p.body.length + 1 <= CHUNK_TARGET / 2) last.body += '\n' + p.body
    else merged.push({ ...p })
  }
  return merged.slice(0, MAX_CHUNKS).map((p, index) => ({ index, text: p.heading ? `${p.heading}: ${p.body}` : p.body }))
}
