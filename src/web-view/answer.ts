import { ApiError, apiErrors, type WireResponse } from '../base/errors.ts'
import { allowHeader, type WireRequest } from '../base/wire.ts'
import type { UserRecord } from '../model/records.ts'
import type { RuleContext } from '../rules/context.ts'
import { toUserProfile } from '../rules/profile.ts'
import { checkSignInToken, type RedeemOutcome, redeemSignInToken } from '../rules/sign-in-tokens.ts'
import { findWebViewSession, openWebViewSession } from '../rules/web-view-sessions.ts'
import {
  renderErrorPage,
  renderRefreshPage,
  renderSignedInPage,
  type SignInFailure,
  type WebViewMessages,
} from './page.ts'

/** The path of the emulated web view. */
export const webViewPath = '/webview'

/** The cookie that keeps a web view signed in across reloads. */
const sessionCookie = 'identify_api_mock_session'

/**
 * The headers of every web-view page: never cached, never sniffed as another type, no referrer
 * (the URL carries a sign-in token), and a Content-Security-Policy that runs only the page's own
 * style and script, marked with this response's `nonce`.
 */
function pageHeaders(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  }
}

/** 128 random bits, base64: a new one for every page. */
function createNonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))))
}

/**
 * A web-view page: `render` is given the nonce its style and script carry, and the answer the
 * headers of every page.
 *
 * @example webViewPage(200, (nonce) => renderSignedInPage({ …, nonce }))
 */
function webViewPage(
  status: number,
  render: (nonce: string) => string,
  headers: Record<string, string> = {},
): WireResponse {
  const nonce = createNonce()
  return { status, headers: { ...pageHeaders(nonce), ...headers }, body: render(nonce) }
}

/**
 * An error of {@link apiErrors} as the web view shows it: an HTML page titled with its message,
 * with its status and headers.
 *
 * @example webViewErrorPage(new ApiError('forbidden'))
 */
export function webViewErrorPage(error: ApiError): WireResponse {
  return webViewPage(error.status, (nonce) => renderErrorPage(error.message, nonce), {
    ...error.headers,
  })
}

/**
 * `GET /webview?orgId=&token=&path=&webview=`: redeems the sign-in token as the platform's web view
 * does and renders the learner's page, setting a session cookie so a reload without the token stays
 * signed in. A token that cannot sign in (unknown, used, expired, another organisation's) gets a
 * 401 page that posts the session-refresh message to the app. `HEAD` answers the status and
 * headers `GET` would, without redeeming the token or setting a cookie.
 */
export async function answerWebView(
  ctx: RuleContext,
  request: WireRequest,
  messages: WebViewMessages,
): Promise<{ response: WireResponse; outcome?: RedeemOutcome }> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return {
      response: webViewErrorPage(
        new ApiError('methodNotAllowed', { headers: { allow: allowHeader(['GET']) } }),
      ),
    }
  }
  const query = new URL(request.target, 'http://web-view.invalid').searchParams
  const orgId = query.get('orgId') ?? ''
  const token = query.get('token')
  const closeButton = query.get('webview') === 'true'
  const refresh = (failure: SignInFailure, reason: string = failure) =>
    webViewPage(apiErrors.unauthorized.status, (nonce) =>
      renderRefreshPage({ failure, reason, closeButton, messages, nonce }),
    )
  const headers: Record<string, string> = {}

  let user: UserRecord | undefined
  if (token && request.method === 'HEAD') {
    const checked = checkSignInToken(ctx, orgId, token, ctx.now(orgId))
    if (!checked.ok) return { response: refresh(checked.reason) }
    user = checked.user
  } else if (token) {
    const redeemed = redeemSignInToken(ctx, orgId, token)
    if (!redeemed.ok) return { response: refresh(redeemed.reason), outcome: redeemed.reason }
    user = redeemed.user
    const sessionId = openWebViewSession(ctx, user)
    headers['set-cookie'] =
      `${sessionCookie}=${sessionId}; Path=${webViewPath}; Max-Age=${ctx.sessionTtlSeconds}; HttpOnly; SameSite=Lax`
  } else {
    const sessionId = readCookie(request.headers.get('cookie'), sessionCookie)
    user = sessionId ? findWebViewSession(ctx, orgId, sessionId) : undefined
    if (!user) {
      if (token === '') return { response: refresh('unknown'), outcome: 'unknown' }
      // The message keeps its documented reason; the page says the session is over only when
      // the browser had one.
      return { response: refresh(sessionId ? 'session-ended' : 'no-token', 'no-token') }
    }
  }

  const signedIn = user
  const response = webViewPage(
    200,
    (nonce) =>
      renderSignedInPage({
        profile: toUserProfile(ctx, signedIn),
        organisationName: ctx.db.organisations.get(orgId)?.name ?? orgId,
        orgId,
        path: query.get('path') || '/',
        closeButton,
        messages,
        nonce,
      }),
    headers,
  )
  return { response, ...(token && request.method === 'GET' && { outcome: 'redeemed' as const }) }
}

function readCookie(header: string | null, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return value.join('=')
  }
  return undefined
}
