import { controlPaths } from '../base/control-paths.ts'
import type { WireResponse } from '../base/errors.ts'
import { inspectorHtml } from './html.ts'
import { inspectorScript } from './script.ts'
import { inspectorCss } from './style.ts'

/**
 * The inspector's policy: its own script, style and data calls, nothing inline, nothing from
 * elsewhere, and never inside another site's frame.
 */
export const inspectorContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const headers = {
  'content-security-policy': inspectorContentSecurityPolicy,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
}

const asset = (contentType: string, body: string): WireResponse => ({
  status: 200,
  headers: { ...headers, 'content-type': contentType },
  body,
})

const files = new Map<string, () => Promise<WireResponse>>([
  [controlPaths.inspector, async () => asset('text/html; charset=utf-8', inspectorHtml)],
  [controlPaths.inspectorStyle, async () => asset('text/css; charset=utf-8', inspectorCss)],
  [
    controlPaths.inspectorScript,
    async () => asset('text/javascript; charset=utf-8', await inspectorScript()),
  ],
])

/**
 * The inspector page's file at `path`, if it is one of its three: they hold no data, so no
 * control token guards them.
 */
export function inspectorAsset(path: string): Promise<WireResponse> | undefined {
  return files.get(path)?.()
}
