/**
 * The text of an HTML policy document, as alignment uploads store it (and the
 * alignment evaluation reads its fixtures): scripts and styles dropped, block ends
 * as paragraph breaks (the chunker splits on them), headings kept as Markdown.
 */
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

/** HTML to text: scripts and styles dropped, block ends as paragraph breaks, entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|noscript|template)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<\/(p|h[1-6]|li|div|tr|section|article|header|footer|blockquote|pre|table|ul|ol)>|<br\s*\/?>/gi, '\n\n')
    .replace(/<h([1-6])[^>]*>/gi, (_, n: string) => '\n\n' + '#'.repeat(Number(n)) + ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(#x?[0-9a-f]+|\w+);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)
        return Number.isFinite(code) ? String.fromCodePoint(code) : m
      }
      return ENTITIES[e.toLowerCase()] ?? m
    })
    .replace(/[ \t]+/g, ' ')
    .replace(/\n[ \t]+/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}
