/**
 * A data table: columns declared once (header, cell, alignment), rows keyed, an
 * optional row action (the row's first link stays the keyboard way in), an empty
 * message. Wide tables scroll sideways on a phone instead of squeezing.
 */
import type { ComponentChildren } from 'preact'

export interface Column<T> {
  header: string
  cell(row: T): ComponentChildren
  align?: 'left' | 'right'
  /** Hidden on narrow screens. */
  wide?: boolean
}

export function DataTable<T>(props: { columns: Column<T>[]; rows: T[]; rowKey(row: T): string; onRow?(row: T): void; empty?: ComponentChildren; caption?: string; testId?: string }) {
  const { columns, rows } = props
  return (
    <div class="table-wrap">
      <table class={props.onRow ? 'clickable' : undefined} data-testid={props.testId}>
        {props.caption && <caption class="sr-only">{props.caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} class={[c.align === 'right' ? 'num' : '', c.wide ? 'wide' : ''].join(' ').trim() || undefined} scope="col">
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} class="empty">
                {props.empty ?? 'Nothing to show.'}
              </td>
            </tr>
          ) : (
            rows.map((r) => (
              <tr key={props.rowKey(r)} onClick={props.onRow ? (e) => !(e.target as HTMLElement).closest('a,button') && props.onRow!(r) : undefined}>
                {columns.map((c) => (
                  <td key={c.header} class={[c.align === 'right' ? 'num' : '', c.wide ? 'wide' : ''].join(' ').trim() || undefined}>
                    {c.cell(r)}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  )
}
