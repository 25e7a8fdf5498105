import type { WireResponse } from '../errors.ts'
import type { UserRecord } from '../model/records.ts'
import type { RuleContext } from '../rules/context.ts'
import { toUserProfile } from '../rules/profile.ts'
import { redeemSignInToken } from '../rules/sign-in-tokens.ts'
import { findWebViewSession, openWebViewSession } from '../rules/web-view-sessions.ts'
import type { WireRequest } from '../wire.ts'
import {
  renderErrorPage,
  renderRefreshPage,
  renderSignedInPage,
  type WebViewMessages,
} from './page.ts'

/** The path of the emulated web view. */
export const webViewPath = '/webview'

/** The cookie that keeps a web view signed in across reloads. */
export const sessionCookie = 'identify_api_mock_session'

const htmlHeaders = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }

/**
 * `GET /webview?orgId=&token=&path=&webview=`: redeems the sign-in token as the platform's web view
 * does and renders the learner's page, setting a session cookie so a reload without the token stays
 * signed in. A token that cannot sign in (unknown, used, expired, another organisation's) gets a
 * 401 page that posts the session-refresh message to the app.
 */
export async function answerWebView(
  ctx: RuleContext,
  request: WireRequest,
  messages: WebViewMessages,
): Promise<WireResponse> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return {
      status: 405,
      headers: { ...htmlHeaders, allow: 'GET' },
      body: renderErrorPage('Method not allowed'),
    }
  }
  const query = new URL(request.target, 'http://web-view.invalid').searchParams
  const orgId = query.get('orgId') ?? ''
  const token = query.get('token')
  const headers: Record<string, string> = { ...htmlHeaders }

  let user: UserRecord | undefined
  if (token) {
    const redeemed = redeemSignInToken(ctx, orgId, token)
    if (!redeemed.ok) return refresh(redeemed.reason, messages)
    user = redeemed.user
    const sessionId = await openWebViewSession(ctx, user)
    headers['set-cookie'] =
      `${sessionCookie}=${sessionId}; Path=${webViewPath}; Max-Age=${ctx.sessionTtlSeconds}; HttpOnly; SameSite=Lax`
  } else {
    const sessionId = readCookie(request.headers.get('cookie'), sessionCookie)
    user = sessionId ? findWebViewSession(ctx, orgId, sessionId) : undefined
    if (!user) return refresh(token === null ? 'no-token' : 'unknown', messages)
  }

  const body = renderSignedInPage({
    profile: toUserProfile(ctx, user),
    organisationName: ctx.db.organisations.get(orgId)?.name ?? orgId,
    orgId,
    path: query.get('path') || '/',
    closeButton: query.get('webview') === 'true',
    messages,
  })
  return { status: 200, headers, body }
}

function refresh(reason: string, messages: WebViewMessages): WireResponse {
  return { status: 401, headers: htmlHeaders, body: renderRefreshPage(reason, messages) }
}

function readCookie(header: string | null, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return value.join('=')
  }
  return undefined
}
