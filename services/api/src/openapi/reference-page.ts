/**
 * GET /docs: the API reference as one self-contained HTML page rendered on the
 * server from the OpenAPI document: no scripts, fonts or styles from elsewhere, so
 * it works offline and behind any firewall. Operations are grouped by tag; schemas
 * are shown as nested field lists (collapsible with <details>, no JavaScript).
 */
import type { JsonSchema, OpenApiDocument, OpenApiOperation } from './document.js'

const esc = (s: unknown): string =>
  String(s).replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!)

const anchor = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-')

/** A one-line type label: string, integer, array of object, "a" | "b", string | null, ... */
function typeLabel(s: JsonSchema): string {
  if (typeof s.$ref === 'string') return s.$ref.split('/').at(-1)!
  if ('const' in s) return JSON.stringify(s.const)
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ')
  const alts = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined
  if (alts) return alts.map(typeLabel).join(' | ')
  const t = Array.isArray(s.type) ? (s.type as string[]).join(' | ') : (s.type as string | undefined)
  if (t === 'array' && s.items) return `array of ${typeLabel(s.items as JsonSchema)}`
  if (t === 'object' && !s.properties && s.additionalProperties && typeof s.additionalProperties === 'object') return `map of ${typeLabel(s.additionalProperties as JsonSchema)}`
  if (!t) return 'any'
  return s.format ? `${t} (${s.format})` : t
}

function constraints(s: JsonSchema): string[] {
  const out: string[] = []
  for (const k of ['minimum', 'maximum', 'minLength', 'maxLength', 'pattern'] as const) if (s[k] !== undefined) out.push(`${k} ${s[k]}`)
  if (s.default !== undefined) out.push(`default ${JSON.stringify(s.default)}`)
  if (s.additionalProperties === false) out.push('no other fields')
  return out
}

/** The object whose fields to list below a schema's label, if any (through arrays, maps and nullable alternatives). */
function inner(s: JsonSchema): JsonSchema | null {
  if (s.properties) return s
  if (s.items) return inner(s.items as JsonSchema)
  if (s.additionalProperties && typeof s.additionalProperties === 'object') return inner(s.additionalProperties as JsonSchema)
  const alts = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined
  if (alts) for (const a of alts) {
    const i = inner(a)
    if (i) return i
  }
  return null
}

function fields(s: JsonSchema, depth = 0): string {
  const obj = inner(s)
  if (!obj?.properties || depth > 8) return ''
  const required = new Set((obj.required as string[] | undefined) ?? [])
  const rows = Object.entries(obj.properties as Record<string, JsonSchema>).map(([name, p]) => {
    const meta = [...constraints(p)]
    const sub = fields(p, depth + 1)
    return `<li><code class="f">${esc(name)}</code>${required.has(name) ? '' : '<span class="opt">optional</span>'} <span class="t">${esc(typeLabel(p))}</span>${
      p.description ? ` <span class="d">${esc(p.description)}</span>` : ''
    }${meta.length ? ` <span class="c">${esc(meta.join(', '))}</span>` : ''}${sub}</li>`
  })
  return `<ul class="fields">${rows.join('')}</ul>`
}

function schemaBlock(s: JsonSchema): string {
  const extra = constraints(s)
  return `<div class="schema"><span class="t">${esc(typeLabel(s))}</span>${s.description ? ` <span class="d">${esc(s.description)}</span>` : ''}${
    extra.length ? ` <span class="c">${esc(extra.join(', '))}</span>` : ''
  }${fields(s)}</div>`
}

function operation(doc: OpenApiDocument, path: string, method: string, op: OpenApiOperation): string {
  const params = op.parameters.length
    ? `<h4>Parameters</h4><table><tr><th>Name</th><th>In</th><th>Type</th><th>Description</th></tr>${op.parameters
        .map(
          (p) =>
            `<tr><td><code>${esc(p.name)}</code>${p.required ? ' <span class="req">required</span>' : ''}</td><td>${p.in}</td><td>${esc(typeLabel(p.schema))}${
              constraints(p.schema).length ? `<br><span class="c">${esc(constraints(p.schema).join(', '))}</span>` : ''
            }</td><td>${esc(p.description ?? '')}</td></tr>`,
        )
        .join('')}</table>`
    : ''
  const body = op.requestBody
    ? `<h4>Request body</h4>${Object.entries(op.requestBody.content)
        .map(([type, c]) => `<p class="ct">${esc(type)}</p>${schemaBlock(c.schema)}`)
        .join('')}`
    : ''
  const responses = Object.entries(op.responses)
    .map(([status, r]) => {
      if ('$ref' in r) {
        const name = r.$ref.split('/').at(-1)!
        const shared = doc.components.responses[name]
        return `<li><b>${esc(status)}</b> <a href="#error">${esc(shared?.description ?? name)}</a></li>`
      }
      const content = r.content ? Object.entries(r.content).map(([type, c]) => `<p class="ct">${esc(type)}</p>${schemaBlock(c.schema)}`).join('') : ''
      return `<li><b>${esc(status)}</b> ${esc(r.description)}${content}</li>`
    })
    .join('')
  const role = op.security && op.security.length === 0 ? '<span class="role none">no credentials</span>' : `<span class="role">role: ${esc(op['x-required-role'] ?? 'any')}</span>`
  return `<section class="op" id="${esc(op.operationId)}">
<h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code> ${role}</h3>
<p class="sum">${esc(op.summary)} <a class="id" href="#${esc(op.operationId)}">${esc(op.operationId)}</a></p>
${op.description ? `<p>${esc(op.description)}</p>` : ''}${params}${body}<h4>Responses</h4><ul class="resp">${responses}</ul>
</section>`
}

export function renderReferencePage(doc: OpenApiDocument): string {
  const byTag = new Map<string, string[]>(doc.tags.map((t) => [t.name, []]))
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) {
      const tag = op.tags[0] ?? 'Other'
      if (!byTag.has(tag)) byTag.set(tag, [])
      byTag.get(tag)!.push(operation(doc, path, method, op))
    }
  const nav = [...byTag.keys()].map((t) => `<li><a href="#tag-${anchor(t)}">${esc(t)}</a> <span class="n">${byTag.get(t)!.length}</span></li>`).join('')
  const sections = [...byTag].map(([t, ops]) => `<h2 id="tag-${anchor(t)}">${esc(t)}</h2>${ops.join('\n')}`).join('\n')
  const schemes = Object.entries(doc.components.securitySchemes)
    .map(([name, s]) => `<li><code>${esc(name)}</code>: ${esc(s.description ?? '')}</li>`)
    .join('')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)} ${esc(doc.info.version)}</title>
<style>
body{font:14px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;display:flex}
nav{position:sticky;top:0;height:100vh;overflow:auto;min-width:220px;padding:16px;background:#f4f6fa;border-right:1px solid #dde2ea;box-sizing:border-box}
nav ul{list-style:none;padding:0}nav li{margin:4px 0}nav .n{color:#8a93a3;font-size:12px}
main{padding:16px 32px;max-width:1100px}
h2{border-bottom:2px solid #dde2ea;padding-top:12px}
.op{border:1px solid #dde2ea;border-radius:6px;padding:8px 16px;margin:12px 0}
.op h3{margin:6px 0;font-size:15px}.m{display:inline-block;min-width:58px;text-align:center;border-radius:4px;color:#fff;font-size:12px;padding:2px 6px}
.get{background:#2f7d32}.post{background:#1565c0}.put{background:#ef6c00}.patch{background:#6a1b9a}.delete{background:#c62828}
.role{font-size:12px;font-weight:normal;background:#eef1f6;border-radius:4px;padding:2px 6px;margin-left:8px}.role.none{background:#e8f5e9}
.sum{margin:4px 0}.id{font-size:11px;color:#8a93a3;margin-left:6px}
table{border-collapse:collapse;margin:4px 0}td,th{border:1px solid #dde2ea;padding:3px 8px;text-align:left;vertical-align:top}
.req{color:#c62828;font-size:11px}.opt{color:#8a93a3;font-size:11px;margin-left:4px}
.t{color:#1565c0;font-family:ui-monospace,monospace;font-size:12px}.d{color:#444}.c{color:#8a93a3;font-size:12px}
.fields{margin:2px 0 2px 4px;padding-left:16px;border-left:1px dotted #c5ccd8}.ct{margin:4px 0 0;font-size:12px;color:#8a93a3}
code{font-family:ui-monospace,monospace}
</style></head>
<body><nav><b>${esc(doc.info.title)}</b><br><span class="c">version ${esc(doc.info.version)} · OpenAPI ${esc(doc.openapi)}</span>
<ul>${nav}<li><a href="#error">Errors</a></li></ul><a href="openapi.json">openapi.json</a></nav>
<main><h1>${esc(doc.info.title)}</h1><p>${esc(doc.info.description)}</p>
<h4>Authentication</h4><ul>${schemes}</ul>
${sections}
<h2 id="error">Errors</h2>${schemaBlock(doc.components.schemas.Error!)}
<ul>${Object.entries(doc.components.responses).map(([n, r]) => `<li><code>${esc(n)}</code>: ${esc(r.description)}</li>`).join('')}</ul>
</main></body></html>`
}
