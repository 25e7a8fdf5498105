/** One line of the benchmark's table. */
export interface Figure {
  /** The goal it belongs to (bench/README.md names them). */
  goal: number
  name: string
  /** The figure, with its unit. */
  measured: string
  /** What the goal asks of it. */
  target: string
  /** The figure as a ratio to what it is compared with, when it is one. */
  ratio?: number
  /** Whether the goal is met; `undefined` for a figure shown for context only. */
  met?: boolean
}

/** The figures as a Markdown table (what bench/README.md shows). */
export function formatTable(figures: readonly Figure[]): string {
  const rows = figures.map((f) => [
    String(f.goal),
    f.name,
    f.measured,
    f.target,
    f.ratio === undefined ? '' : f.ratio.toFixed(2),
    f.met === undefined ? '' : f.met ? 'yes' : '**no**',
  ])
  const header = ['Goal', 'Figure', 'Measured', 'Goal asks', 'Ratio', 'Met']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')
}

export const ms = (value: number) => `${value < 10 ? value.toFixed(3) : value.toFixed(1)} ms`
export const us = (valueMs: number) => `${(valueMs * 1000).toFixed(1)} µs`
export const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`
export const perSecond = (value: number) => `${Math.round(value).toLocaleString('en')}/s`
