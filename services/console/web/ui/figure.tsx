/**
 * A chart with its title and the same figures as a table, one click away: the SVG
 * carries a label for screen readers, the table gives every value exactly (and is
 * what a keyboard or screen-reader user reads row by row).
 */
import type { ComponentChildren } from 'preact'
import { DataTable, type Column } from './table'

export function ChartFigure<T>({ title, children, columns, rows, rowKey, note }: { title: string; children: ComponentChildren; columns: Column<T>[]; rows: T[]; rowKey(row: T): string; note?: ComponentChildren }) {
  return (
    <figure class="panel chart-figure">
      <figcaption>
        <h2>{title}</h2>
        {note && <p class="muted small">{note}</p>}
      </figcaption>
      {rows.length === 0 ? <p class="empty">Nothing in this period yet.</p> : children}
      {rows.length > 0 && (
        <details>
          <summary>Table</summary>
          <DataTable columns={columns} rows={rows} rowKey={rowKey} caption={title} />
        </details>
      )}
    </figure>
  )
}
