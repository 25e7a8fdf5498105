import type { UserProfile } from '../api/api-schemas.ts'
import type { RedeemFailure } from '../rules/sign-in-tokens.ts'

/** The `type` of each message the web view posts to the host app. */
export interface WebViewMessages {
  close: string
  sessionRefresh: string
}

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c] ?? c)

/** JSON safe to place inside a `<script>` element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c')

/**
 * Posts a message to whichever host the page runs in: React Native's `ReactNativeWebView`, an iOS
 * `WKWebView` handler named `webview`, or the parent window (an iframe, or the page itself).
 */
const postScript = `
function postToApp(message) {
  if (window.ReactNativeWebView) window.ReactNativeWebView.postMessage(JSON.stringify(message));
  else if (window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.webview)
    window.webkit.messageHandlers.webview.postMessage(message);
  else window.parent.postMessage(message, '*');
}`

const style = `
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f5f6f8; color: #1d2330; }
header { display: flex; align-items: center; justify-content: space-between; padding: 12px 20px;
  background: #24305e; color: #fff; }
header h1 { font-size: 17px; margin: 0; font-weight: 600; }
main { max-width: 560px; margin: 24px auto; padding: 0 20px; }
.card { background: #fff; border-radius: 10px; padding: 20px; box-shadow: 0 1px 3px rgba(0,0,0,.12); margin-bottom: 16px; }
h2 { margin: 0 0 8px; font-size: 22px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 6px 16px; margin: 0; }
dt { color: #5b6478; }
dd { margin: 0; }
button { font: inherit; border: 0; border-radius: 6px; padding: 6px 14px; cursor: pointer; background: #fff; color: #24305e; }
button.primary { background: #24305e; color: #fff; padding: 10px 20px; font-weight: 600; }
button:focus-visible { outline: 3px solid #f0b429; outline-offset: 2px; }
.muted { color: #5b6478; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 13px; background: #e3f4e8; color: #1c6b34; }
.badge.open { background: #fff3d6; color: #7a5500; }`

/** What every page is made of; `nonce` lets its one style and one script run under the CSP. */
interface Layout {
  title: string
  header: string
  body: string
  script: string
  nonce: string
}

function layout({ title, header, body, script, nonce }: Layout) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${style}</style>
</head>
<body>
<header>${header}</header>
<main>${body}</main>
<script nonce="${nonce}">${postScript}
${script}
</script>
</body>
</html>
`
}

export interface SignedInPage {
  profile: Required<UserProfile>
  organisationName: string
  orgId: string
  path: string
  closeButton: boolean
  messages: WebViewMessages
  nonce: string
}

/** The page a signed-in learner sees. */
export function renderSignedInPage(page: SignedInPage): string {
  const { profile, messages } = page
  const name = [profile.firstName, profile.lastName].filter(Boolean).join(' ') || 'Learner'
  const learningPath = profile.learningPathId
    ? `<dl>
  <dt>Learning path</dt><dd id="learning-path">${escapeHtml(profile.learningPathName ?? profile.learningPathId)}</dd>
  <dt>Started</dt><dd>${escapeHtml(profile.learningPathStartDate ?? '–')}</dd>
  <dt>Due</dt><dd>${escapeHtml(profile.learningPathDueDate ?? '–')}</dd>
  <dt>Status</dt><dd>${
    profile.learningPathCompletedAt
      ? `<span class="badge">Completed ${escapeHtml(profile.learningPathCompletedAt.slice(0, 10))}</span>`
      : '<span class="badge open">In progress</span>'
  }</dd>
</dl>`
    : '<p class="muted">No learning path assigned yet.</p>'
  return layout({
    title: `${name} – Learning`,
    header: `<h1>${escapeHtml(page.organisationName)}</h1>${closeButton(page.closeButton)}`,
    body: `<section class="card">
  <h2 id="learner">${escapeHtml(name)}</h2>
  <p class="muted">Signed in to <span id="organisation">${escapeHtml(page.organisationName)}</span> (${escapeHtml(page.orgId)}) · <span id="path">${escapeHtml(page.path)}</span></p>
</section>
<section class="card">${learningPath}</section>`,
    script: closeScript(page.closeButton, messages),
    nonce: page.nonce,
  })
}

/**
 * Why the web view cannot sign in: a token refused (as redemption says why), no token at all, or
 * a session cookie whose session is over.
 */
export type SignInFailure = RedeemFailure | 'no-token' | 'session-ended'

/** What the learner reads for each failure: plain words, never the reason's code. */
const failureTexts: Record<SignInFailure, { heading: string; text: string }> = {
  expired: {
    heading: 'This sign-in link has expired',
    text: 'Sign-in links work for a few minutes only.',
  },
  'already-used': {
    heading: 'This sign-in link has already been used',
    text: 'Each sign-in link works once.',
  },
  'wrong-organisation': {
    heading: 'This sign-in link is for another organisation',
    text: "It cannot open this organisation's pages.",
  },
  unknown: {
    heading: 'This sign-in link is not valid',
    text: 'It may be incomplete, or its account may have been removed.',
  },
  'no-token': {
    heading: 'You are not signed in',
    text: 'Open this page from the app to sign in.',
  },
  'session-ended': {
    heading: 'Your session has ended',
    text: 'Sign in again from the app to carry on.',
  },
}

export interface RefreshPage {
  failure: SignInFailure
  /** The `reason` of the session-refresh message posted to the app. */
  reason: string
  closeButton: boolean
  messages: WebViewMessages
  nonce: string
}

/** The page for a token or session that cannot sign in: it asks the app for a fresh token. */
export function renderRefreshPage(page: RefreshPage): string {
  const message = scriptJson({ type: page.messages.sessionRefresh, reason: page.reason })
  const { heading, text } = failureTexts[page.failure]
  return layout({
    title: heading,
    header: `<h1>Sign-in needed</h1>${closeButton(page.closeButton)}`,
    body: `<section class="card">
  <h2 id="failure">${escapeHtml(heading)}</h2>
  <p class="muted">${escapeHtml(text)} The app has been asked for a new sign-in link.</p>
  <button id="retry" class="primary" type="button">Try again</button>
</section>`,
    script: `postToApp(${message});
document.getElementById('retry').addEventListener('click', function () { postToApp(${message}); });
${closeScript(page.closeButton, page.messages)}`,
    nonce: page.nonce,
  })
}

function closeButton(shown: boolean): string {
  return shown ? '<button id="close" type="button">Close</button>' : ''
}

function closeScript(shown: boolean, messages: WebViewMessages): string {
  return shown
    ? `document.getElementById('close').addEventListener('click', function () { postToApp({ type: ${scriptJson(messages.close)} }); });`
    : ''
}

/** A plain error page, for what is not a sign-in failure (a wrong method, a refused `Host`). */
export function renderErrorPage(title: string, nonce: string): string {
  return layout({ title, header: `<h1>${escapeHtml(title)}</h1>`, body: '', script: '', nonce })
}
