import type { GatewayName } from '../api/gateway.ts'
import type { GatewayPage } from '../base/wire-failure.ts'

/** The statuses a gateway answers with a page of its own. */
export type PageStatus = 429 | 502 | 503 | 504

/**
 * nginx 1.22's reason phrases (its `ngx_http_status_lines`): a 503 is "Service Temporarily
 * Unavailable", a 504 "Gateway Time-out".
 */
const nginxReasons: Record<PageStatus, string> = {
  429: 'Too Many Requests',
  502: 'Bad Gateway',
  503: 'Service Temporarily Unavailable',
  504: 'Gateway Time-out',
}

/**
 * nginx 1.22's own error page for `status`, as measured from Debian's nginx with
 * `server_tokens off` (the footer and `Server` name no version): `Server`, `Date`, `Content-Type:
 * text/html` without a charset, `Content-Length`, `Connection: keep-alive`, in that order, and the
 * connection kept. A `Retry-After` (`add_header … always`) comes last.
 */
function nginxPage(status: PageStatus, retryAfter: string | undefined): GatewayPage {
  const title = `${status} ${nginxReasons[status]}`
  const body = `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`
  return {
    status,
    reason: nginxReasons[status],
    headers: [
      ['Server', 'nginx'],
      ['Date'],
      ['Content-Type', 'text/html'],
      ['Content-Length', String(byteLength(body))],
      ['Connection', 'keep-alive'],
      ...withRetryAfter('Retry-After', retryAfter),
    ],
    body,
    connection: 'keep',
  }
}

/** haproxy 2.6's built-in pages (`http_err_msgs`): reason phrase and the line under the heading. */
const haproxyPages: Record<PageStatus, { reason: string; text: string }> = {
  429: {
    reason: 'Too Many Requests',
    text: 'You have sent too many requests in a given amount of time.',
  },
  502: { reason: 'Bad Gateway', text: 'The server returned an invalid or incomplete response.' },
  503: { reason: 'Service Unavailable', text: 'No server is available to handle this request.' },
  504: { reason: 'Gateway Time-out', text: "The server didn't respond in time." },
}

/**
 * haproxy 2.6's own page for `status`, as measured from Debian's haproxy: lowercase
 * `content-length`, `cache-control: no-cache`, `content-type: text/html` without a charset, no
 * `Server` and no `Date`. A 502, 503 or 504 says nothing of the connection, which haproxy then
 * closes when the client sends its next request on it; a 429 (a `deny`) keeps it. A `retry-after`
 * (`http-after-response set-header`) comes last.
 */
function haproxyPage(status: PageStatus, retryAfter: string | undefined): GatewayPage {
  const { reason, text } = haproxyPages[status]
  const body = `<html><body><h1>${status} ${reason}</h1>\n${text}\n</body></html>\n`
  return {
    status,
    reason,
    headers: [
      ['content-length', String(byteLength(body))],
      ['cache-control', 'no-cache'],
      ['content-type', 'text/html'],
      ...withRetryAfter('retry-after', retryAfter),
    ],
    body,
    connection: status === 429 ? 'keep' : 'next',
  }
}

const withRetryAfter = (name: string, value: string | undefined): [string, string][] =>
  value === undefined ? [] : [[name, value]]

/**
 * The page `gateway` answers `status` with, in that gateway's exact form, with `retryAfter` as its
 * `Retry-After` when given.
 *
 * @example gatewayPage('nginx', 504).reason // 'Gateway Time-out'
 */
export function gatewayPage(
  gateway: Exclude<GatewayName, 'none'>,
  status: PageStatus,
  retryAfter?: string,
): GatewayPage {
  switch (gateway) {
    case 'nginx':
      return nginxPage(status, retryAfter)
    case 'haproxy':
      return haproxyPage(status, retryAfter)
    default:
      return gateway satisfies never
  }
}

const encoder = new TextEncoder()
const byteLength = (text: string) => encoder.encode(text).byteLength
