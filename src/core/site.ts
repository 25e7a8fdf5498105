import { controlPaths } from '../base/control-paths.ts'
import { webViewPath } from '../web-view/answer.ts'
import { apiPrefixes } from './routes.ts'

/**
 * A part of the site and who answers it: the mock's `dispatch` (and so the MSW handlers too), or
 * the standalone server alone.
 */
export type SiteRow = {
  /** The path, or with `prefix` the path and everything below it. */
  path: string
  prefix?: true
} & ({ part: 'control' | 'openapi'; by: 'server' } | { part: 'api' | 'webView'; by: 'dispatch' })

/**
 * The paths the server answers, by part: the control endpoints (the inspector's files among
 * them), the OpenAPI document, the API and the web view. The server's front door reads it to
 * hand a request to its part, the MSW handlers to know what to intercept.
 */
export const siteRows: readonly SiteRow[] = [
  { part: 'control', path: controlPaths.root, prefix: true, by: 'server' },
  { part: 'openapi', path: '/openapi.json', by: 'server' },
  ...apiPrefixes.map((path) => ({ part: 'api', path, prefix: true, by: 'dispatch' }) as const),
  { part: 'webView', path: webViewPath, by: 'dispatch' },
]

/**
 * The row of the site `pathname` belongs to: the API's for a path no row has, since the API
 * answers (and journals) the 404 of every unknown path.
 *
 * @example siteRowOf('/__mock/reset').part // 'control'
 */
export function siteRowOf(pathname: string): SiteRow {
  for (const { row, under } of rowsWithPrefixes) {
    if (pathname === row.path || (under !== undefined && pathname.startsWith(under))) return row
  }
  return { part: 'api', path: pathname, by: 'dispatch' }
}

/** Each row with what the paths below it start with, as {@link siteRowOf} asks at every request. */
const rowsWithPrefixes = siteRows.map((row) => ({
  row,
  under: row.prefix ? `${row.path}/` : undefined,
}))
