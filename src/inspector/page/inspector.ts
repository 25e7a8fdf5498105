/**
 * The inspector page's script, a browser module bundled into the one file the page loads
 * (../bundle.ts): it polls the control endpoints, renders what they answer
 * with `textContent` only (never as markup), and sends the control token, once given, as
 * `Authorization: Bearer` with every data call. Polls and actions run one at a time, so that
 * what a poll renders is never older than the action before it. It imports only types of the
 * server's modules.
 */

import type { ChaosReading } from '../../api/chaos-setting.ts'
import type { ClockReading } from '../../api/clock-schemas.ts'
import type { Gateway } from '../../api/gateway.ts'
import type { Snapshot } from '../../api/snapshot-schemas.ts'
import type { CoverageReport } from '../../core/coverage.ts'
import type { QueuedFaultView } from '../../core/faults.ts'
import type { JournalEntry } from '../../core/journal.ts'
import type { Credentials } from '../../model/dataset.ts'
import type {
  RaisedWebhookEvent,
  WebhookDelivery,
  WebhookEndpoint,
} from '../../webhooks/webhook-schemas.ts'
import type { PageConfig } from '../page-config.ts'
import type { describeUser, UserSummary } from '../queries.ts'

/** The server's tables, written in when the script is bundled. */
declare const INSPECTOR_CONFIG: PageConfig
const config = INSPECTOR_CONFIG

type Organisation = Credentials & { shapes: string; curl: string | null }
type UserDetail = ReturnType<typeof describeUser>
type Target = { orgId: string; id: string }

const tokenKey = 'identify-api-mock:control-token'

/** The page's element of that id, which must be of that type. */
function $<T extends HTMLElement>(id: string, type: new () => T): T {
  const node = document.getElementById(id)
  if (!(node instanceof type)) throw new Error(`The page has no ${type.name} #${id}.`)
  return node
}
const div = (id: string) => $(id, HTMLElement)
const button = (id: string) => $(id, HTMLButtonElement)
const input = (id: string) => $(id, HTMLInputElement)
const select = (id: string) => $(id, HTMLSelectElement)
const form = (id: string) => $(id, HTMLFormElement)
const tbody = (id: string) => {
  const body = $(id, HTMLTableElement).tBodies[0]
  if (!body) throw new Error(`The table #${id} has no body.`)
  return body
}

const view = {
  orgId: '',
  q: '',
  offset: 0,
  total: 0,
  detail: null as Target | null,
  organisations: [] as Organisation[],
  journalSignature: '',
  webhookSignature: '',
  coverageSignature: '',
  snapshotSignature: '',
  paused: false,
  busy: 0,
}
let token = sessionStorage.getItem(tokenKey)
let queue: Promise<unknown> = Promise.resolve()

class NeedToken extends Error {}

class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message)
  }
}

/**
 * Runs work once whatever the page is already doing has finished (a poll, another action), and
 * shows its error if it fails: so that a poll never renders what the server held before an action.
 */
function act(work: () => Promise<unknown>): Promise<unknown> {
  view.busy += 1
  const run = queue
    .then(work)
    .catch(report)
    .finally(() => {
      view.busy -= 1
    })
  queue = run
  return run
}

type Child = Node | string

function el(
  tag: string,
  options: Record<string, string> = {},
  children: Child[] = [],
): HTMLElement {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(options)) {
    if (name === 'text') node.textContent = value
    else if (name === 'className') node.className = value
    else node.setAttribute(name, value)
  }
  node.append(...children)
  return node
}

/** '2025-03-18T12:44:33+00:00' as '2025-03-18 12:44' (UTC), for a narrow column. */
function shortTime(stamp: string | null): string {
  return stamp ? stamp.slice(0, 16).replace('T', ' ') : '–'
}

function query(params: Record<string, string>): string {
  return `?${new URLSearchParams(params).toString()}`
}

/** A call to the control endpoints; 401 asks for the control token. */
async function control<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {}
  if (token) headers.authorization = `Bearer ${token}`
  const response = await send(method, path, headers, body)
  if (response.status === 401) {
    askForToken(token ? 'The server refused that token: enter it again.' : '')
    throw new NeedToken()
  }
  return read<T>(response)
}

/** A call to the API itself, with an organisation's API key. */
async function api<T>(method: string, path: string, key: string, body: unknown): Promise<T> {
  return read<T>(await send(method, path, { authorization: `Bearer ${key}` }, body))
}

function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<Response> {
  const init: RequestInit = { method, headers, cache: 'no-store', credentials: 'same-origin' }
  if (body !== undefined) {
    headers['content-type'] = 'application/json'
    init.body = JSON.stringify(body)
  }
  return fetch(path, init)
}

async function read<T>(response: Response): Promise<T> {
  const text = await response.text()
  let data: unknown = null
  try {
    data = text ? JSON.parse(text) : null
  } catch {
    data = null
  }
  if (!response.ok) {
    const message = (data as { message?: unknown } | null)?.message
    throw new HttpError(
      typeof message === 'string' && message ? message : `HTTP ${response.status}`,
      response.status,
    )
  }
  return data as T
}

function say(message: string, isError = false): void {
  const status = div('status')
  status.textContent = message
  status.className = isError ? 'status error' : 'status'
  status.hidden = !message
}

function report(error: unknown): void {
  if (error instanceof NeedToken) return
  say(error instanceof Error ? error.message : String(error), true)
}

function askForToken(message: string): void {
  view.paused = true
  div('panels').hidden = true
  div('token-panel').hidden = false
  say(message, true)
  input('token-input').focus()
}

form('token-form').addEventListener('submit', (event) => {
  event.preventDefault()
  token = input('token-input').value
  sessionStorage.setItem(tokenKey, token)
  input('token-input').value = ''
  div('token-panel').hidden = true
  say('')
  start()
})

// Organisations

async function loadOrganisations(): Promise<void> {
  const { organisations } = await control<{ organisations: Organisation[] }>(
    'GET',
    config.paths.organisations,
  )
  view.organisations = organisations
  const list = div('org-list')
  list.replaceChildren()
  for (const org of organisations) {
    const keys = org.apiKeys.length
      ? org.apiKeys.map((key) => el('code', { text: key }))
      : [el('span', { className: 'muted', text: '(no key known in clear)' })]
    const parts = [
      el('div', {}, [
        el('strong', { text: org.orgId }),
        ' ',
        el('span', { className: 'muted', text: org.name }),
      ]),
      el('div', { className: 'keys' }, ['API key: ', ...keys]),
      el('div', { className: 'shapes' }, ['Answer shapes: ', el('code', { text: org.shapes })]),
    ]
    if (org.curl) parts.push(el('pre', { text: org.curl }))
    list.append(el('div', { className: 'org', 'data-org': org.orgId }, parts))
  }
  for (const choice of [select('org-select'), select('event-org')]) {
    const current = choice.value
    choice.replaceChildren(
      ...organisations.map((org) => el('option', { value: org.orgId, text: org.orgId })),
    )
    if (organisations.some((org) => org.orgId === current)) choice.value = current
  }
  view.orgId = select('org-select').value
}

// Users

async function loadUsers(): Promise<void> {
  if (!view.orgId) return
  const { total, users } = await control<{ total: number; users: UserSummary[] }>(
    'GET',
    config.paths.users +
      query({
        orgId: view.orgId,
        q: view.q,
        offset: String(view.offset),
        limit: String(config.pageSize),
      }),
  )
  view.total = total
  const rows = users.map((user) => {
    const open = el('button', { type: 'button', className: 'open-user', text: 'Open' })
    open.addEventListener('click', () => openUser(view.orgId, user.id))
    return el('tr', { 'data-id': user.id }, [
      el('td', {}, [open]),
      el('td', { className: 'mono', text: user.id }),
      el('td', { className: 'mono', text: user.userId }),
      el('td', { text: user.name || '–' }),
      el('td', {}, [
        el('span', {
          className: `badge ${user.registrationStatus}`,
          text: user.registrationStatus,
        }),
      ]),
      el('td', { text: user.learningPath || '–' }),
      el('td', { text: user.userGroups.join(', ') || '–' }),
      el('td', { text: shortTime(user.lastActive) }),
    ])
  })
  tbody('user-table').replaceChildren(...rows)
  const first = total === 0 ? 0 : view.offset + 1
  const last = view.offset + users.length
  div('user-count').textContent =
    total === 0 ? 'No user matches.' : `Users ${first}–${last} of ${total}, newest first.`
  button('prev-page').disabled = view.offset === 0
  button('next-page').disabled = last >= total
}

let searchTimer: ReturnType<typeof setTimeout> | undefined
input('search').addEventListener('input', () => {
  clearTimeout(searchTimer)
  searchTimer = setTimeout(() => {
    view.q = input('search').value
    view.offset = 0
    act(loadUsers)
  }, 250)
})
form('user-search').addEventListener('submit', (event) => event.preventDefault())
select('org-select').addEventListener('change', () => {
  view.orgId = select('org-select').value
  view.offset = 0
  act(async () => {
    await loadUsers()
    await loadSnapshots()
  })
})
button('prev-page').addEventListener('click', () => {
  view.offset = Math.max(0, view.offset - config.pageSize)
  act(loadUsers)
})
button('next-page').addEventListener('click', () => {
  view.offset += config.pageSize
  act(loadUsers)
})

// One user

function openUser(orgId: string, id: string): void {
  view.detail = { orgId, id }
  act(async () => {
    await loadDetail()
    div('user-detail').scrollIntoView({ block: 'nearest' })
  })
}

type Cell = string | number | null | undefined

function table(headings: string[], rows: Cell[][]): HTMLElement {
  if (rows.length === 0) return el('p', { className: 'muted', text: 'None.' })
  return el('div', { className: 'scroll' }, [
    el('table', {}, [
      el('thead', {}, [
        el(
          'tr',
          {},
          headings.map((h) => el('th', { text: h })),
        ),
      ]),
      el(
        'tbody',
        {},
        rows.map((cells) =>
          el(
            'tr',
            {},
            cells.map((c) => el('td', { text: c == null ? '–' : String(c) })),
          ),
        ),
      ),
    ]),
  ])
}

function more(shown: number, count: number): HTMLElement[] {
  return count > shown
    ? [el('p', { className: 'muted', text: `The newest ${shown} of ${count}.` })]
    : []
}

async function loadDetail(): Promise<void> {
  if (!view.detail) return
  let user: UserDetail
  try {
    user = await control<UserDetail>('GET', config.paths.user + query(view.detail))
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) {
      closeDetail()
      return
    }
    throw error
  }
  const p = user.profile
  const name = [p.firstName, p.lastName].filter(Boolean).join(' ')
  div('detail-title').textContent = user.id + (name ? ` · ${name}` : '')
  const facts: [string, Cell][] = [
    ['Organisation', user.orgId],
    ['userId', p.userId],
    ['Status', p.registrationStatus],
    ['Answer shape', user.shape],
    ['Registered', p.registeredAt],
    ['Last active', p.lastActive],
    ['Country', p.country],
    ['Region', p.region],
    ['Sex', p.sex],
    ['Age bracket', p.ageBracket],
    ['Groups', p.userGroups.join(', ')],
  ]
  const progress: [string, Cell][] = user.progress
    ? [
        ['Learning path', user.progress.name || user.progress.learningPathId],
        ['Started', user.progress.startDate],
        ['Due', user.progress.dueDate],
        ['Completed', user.progress.completedAt],
        ['Progress', `${user.progress.percentComplete} %`],
      ]
    : [['Learning path', null]]
  const dl = el(
    'dl',
    {},
    [...facts, ...progress].flatMap(([term, value]) => [
      el('dt', { text: term }),
      el('dd', { text: value == null || value === '' ? '–' : String(value) }),
    ]),
  )
  div('detail-body').replaceChildren(
    dl,
    el('h3', { text: 'Sign-in tokens' }),
    table(
      ['Issued', 'Expires', 'Redeemed'],
      user.tokens.map((t) => [t.issuedAt, t.expiresAt, t.redeemedAt]),
    ),
    ...more(user.tokens.length, user.tokenCount),
    el('h3', { text: 'Web-view sessions' }),
    table(
      ['Started'],
      user.sessions.map((s) => [s.createdAt]),
    ),
    ...more(user.sessions.length, user.sessionCount),
    el('h3', { text: 'Certificates' }),
    table(
      ['Title', 'Learning path', 'Issued'],
      user.certificates.map((c) => [c.title, c.learningPathId, c.issuedAt]),
    ),
    ...more(user.certificates.length, user.certificateCount),
  )
  div('user-detail').hidden = false
}

function closeDetail(): void {
  view.detail = null
  div('user-detail').hidden = true
}

button('close-detail').addEventListener('click', closeDetail)

button('delete-user').addEventListener('click', () => {
  const target = view.detail
  if (!target || !confirm(`Delete ${target.id} from ${target.orgId} and everything it holds?`)) {
    return
  }
  act(async () => {
    await control('DELETE', config.paths.user + query(target))
    closeDetail()
    say(`Deleted ${target.id}.`)
    await loadUsers()
  })
})

button('open-web-view').addEventListener('click', async () => {
  const target = view.detail
  const org = target && view.organisations.find((o) => o.orgId === target.orgId)
  const key = org?.apiKeys[0]
  if (!target || !key) {
    say(
      `No API key of ${target ? target.orgId : 'this organisation'} is known in clear: the page cannot identify its users.`,
      true,
    )
    return
  }
  // Opened now, while the click still allows a new tab; sent to the web view once identify answers.
  const tab = window.open('about:blank', '_blank')
  try {
    const answer = await api<{ token: string }>('POST', config.identifyPath, key, {
      id: target.id,
      orgId: target.orgId,
    })
    const url =
      config.webViewPath + query({ orgId: target.orgId, token: answer.token, webview: 'true' })
    if (tab) {
      tab.opener = null
      tab.location.href = url
    } else {
      say('The browser blocked the new tab: allow pop-ups for this page.', true)
    }
  } catch (error) {
    if (tab) tab.close()
    report(error)
  }
})

// The journal

async function loadJournal(): Promise<boolean> {
  const entries = await control<JournalEntry[]>(
    'GET',
    config.paths.requests + query({ limit: String(config.journalRows) }),
  )
  const signature = JSON.stringify(entries[entries.length - 1] ?? null) + entries.length
  if (signature === view.journalSignature) return false
  view.journalSignature = signature
  const rows = entries
    .slice()
    .reverse()
    .map((entry) =>
      el('tr', {}, [
        el(
          'td',
          { className: 'mono' },
          // The organisation's clock, when a test set it apart from the real one.
          entry.orgTime === entry.time
            ? [entry.time]
            : [entry.time, el('div', { className: 'muted', text: `clock: ${entry.orgTime}` })],
        ),
        el('td', { text: entry.method }),
        el('td', { className: 'mono', text: entry.path }),
        el('td', {
          className: `status-${String(entry.status).charAt(0)}`,
          text: String(entry.status),
        }),
        el('td', { text: String(entry.durationMs) }),
        el('td', { text: entry.failure ? describeFailure(entry.failure) : '' }),
        el(
          'td',
          { className: 'wrap' },
          entry.request ? [el('pre', { text: JSON.stringify(entry.request) })] : [],
        ),
      ]),
    )
  tbody('journal-table').replaceChildren(...rows)
  return true
}

// Snapshots

/** The chosen organisation's snapshots path, and a snapshot's under it. */
function snapshotsPath(name?: string): string {
  const base = `${config.paths.organisations}/${encodeURIComponent(view.orgId)}/snapshots`
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`
}

async function loadSnapshots(): Promise<void> {
  if (!view.orgId) return
  const snapshots = await control<Snapshot[]>('GET', snapshotsPath())
  const signature = view.orgId + JSON.stringify(snapshots)
  if (signature === view.snapshotSignature) return
  view.snapshotSignature = signature
  div('snapshot-empty').hidden = snapshots.length > 0
  $('snapshot-table', HTMLTableElement).hidden = snapshots.length === 0
  const action = (text: string, run: () => Promise<unknown>, className = '') => {
    const node = el('button', { type: 'button', text, className })
    node.addEventListener('click', () => act(run))
    return node
  }
  tbody('snapshot-table').replaceChildren(
    ...snapshots.map(({ name, createdAt, users, bytes }) =>
      el('tr', { 'data-name': name }, [
        el('td', { className: 'mono', text: name }),
        el('td', { text: shortTime(createdAt) }),
        el('td', { text: String(users) }),
        el('td', { text: String(bytes) }),
        el('td', {}, [
          action('Restore', () => restoreSnapshot(name)),
          action('Fork', () => forkSnapshot(name)),
          action('Drop', () => dropSnapshot(name), 'danger'),
        ]),
      ]),
    ),
  )
}

async function restoreSnapshot(name: string): Promise<void> {
  await control('POST', `${snapshotsPath(name)}/restore`)
  say(`${view.orgId} is back at snapshot ${name}.`)
  closeDetail()
  view.offset = 0
  view.journalSignature = ''
  await refresh()
}

async function forkSnapshot(name: string): Promise<void> {
  const from = { orgId: view.orgId, snapshot: name }
  const { orgId } = await control<{ orgId: string }>('POST', config.paths.organisations, { from })
  await loadOrganisations()
  select('org-select').value = orgId
  view.orgId = orgId
  view.offset = 0
  say(`Forked snapshot ${name} as ${orgId}.`)
  await refresh()
  await loadUsers()
}

async function dropSnapshot(name: string): Promise<void> {
  await control('DELETE', snapshotsPath(name))
  say(`Snapshot ${name} dropped.`)
  await loadSnapshots()
}

form('snapshot-form').addEventListener('submit', (event) => {
  event.preventDefault()
  const name = input('snapshot-name').value
  act(async () => {
    await control('POST', snapshotsPath(), { name })
    input('snapshot-name').value = ''
    say(`Snapshot ${name} saved.`)
    await loadSnapshots()
  })
})

// Clocks

/** A clock as the page words it: `frozen at …`, `running, …`, `real, …`. */
function clockText({ now, mode }: ClockReading): string {
  return mode === 'frozen' ? `frozen at ${now}` : `${mode}, ${now}`
}

async function loadClocks(): Promise<void> {
  const mock = await control<ClockReading>('GET', config.paths.clock)
  div('mock-clock').textContent = `The mock's clock: ${clockText(mock)}`
  if (!view.orgId) return
  const own = await control<ClockReading>(
    'GET',
    `${config.paths.organisations}/${encodeURIComponent(view.orgId)}/clock`,
  )
  div('org-clock').textContent = `Clock of ${view.orgId}: ${clockText(own)}`
}

// Gateway

/** A gateway as the page words it: `nginx, read timeout 60000 ms, buffering`. */
function gatewayText({ gateway, readTimeoutMs, buffering }: Gateway): string {
  if (gateway === 'none') return 'none'
  const buffered = buffering === undefined ? '' : buffering ? ', buffering' : ', not buffering'
  return `${gateway}, read timeout ${readTimeoutMs} ms${buffered}`
}

/** The chosen organisation's gateway path, or the mock's without one. */
const gatewayPath = () =>
  view.orgId
    ? `${config.paths.organisations}/${encodeURIComponent(view.orgId)}/gateway`
    : config.paths.gateway

async function loadGateway(): Promise<void> {
  const mock = await control<Gateway>('GET', config.paths.gateway)
  const own = view.orgId ? await control<Gateway>('GET', gatewayPath()) : undefined
  div('gateway-now').textContent =
    `In front of the mock: ${gatewayText(mock)}` +
    (own ? `; in front of ${view.orgId}: ${gatewayText(own)}` : '')
}

select('gateway-name').replaceChildren(
  ...config.gatewayNames.map((name) => el('option', { value: name, text: name })),
)

form('gateway-form').addEventListener('submit', (event) => {
  event.preventDefault()
  const gateway = select('gateway-name').value
  const setting = {
    gateway,
    readTimeoutMs: Number(input('gateway-timeout').value),
    ...(gateway === 'nginx' && { buffering: input('gateway-buffering').checked }),
  }
  act(async () => {
    await control('PUT', gatewayPath(), setting)
    say(view.orgId ? `Gateway of ${view.orgId} set.` : "The mock's gateway set.")
    await loadGateway()
  })
})

// Faults

function fillFaultStatuses(): void {
  const statuses = config.faultStatuses[select('fault-operation').value] ?? []
  select('fault-status').replaceChildren(
    ...statuses.map((s) => el('option', { value: String(s), text: String(s) })),
  )
}

select('fault-operation').replaceChildren(
  ...Object.keys(config.faultStatuses).map((op) => el('option', { value: op, text: op })),
)
fillFaultStatuses()
select('fault-operation').addEventListener('change', fillFaultStatuses)

/** `reset, applied`, `gateway 503`, `reset 502 (nginx)`: what a failure was, in a few words. */
function describeFailure(failure: {
  kind?: string | undefined
  status?: number | undefined
  applied?: boolean | undefined
  chaos?: boolean | undefined
  gateway?: string | undefined
}): string {
  const { kind = 'status', status, applied, chaos, gateway } = failure
  return `${kind}${status === undefined ? '' : ` ${status}`}${applied ? ', applied' : ''}${gateway ? ` (${gateway})` : ''}${chaos ? ' (chaos)' : ''}`
}

async function loadFaults(): Promise<void> {
  const faults = await control<QueuedFaultView[]>('GET', config.paths.faults)
  div('fault-empty').hidden = faults.length > 0
  div('fault-list').replaceChildren(
    ...faults.map((f) =>
      el('li', {
        text:
          `${f.operation} → ${f.kind || f.applied ? describeFailure(f) : f.status}` +
          (f.case ? ` (${f.case})` : '') +
          `, ${f.remaining} more call${f.remaining === 1 ? '' : 's'}` +
          (f.delayMs
            ? `, ${config.delayRoles[f.kind ?? 'status'] === 'before' ? 'after' : 'over'} ${f.delayMs} ms`
            : ''),
      }),
    ),
  )
}

select('case-name').replaceChildren(
  ...config.failureCases.map(({ name }) => el('option', { value: name, text: name })),
)
function showCaseSummary(): void {
  const chosen = config.failureCases.find(({ name }) => name === select('case-name').value)
  div('case-summary').textContent = chosen?.summary ?? ''
}
showCaseSummary()
select('case-name').addEventListener('change', showCaseSummary)

form('case-form').addEventListener('submit', (event) => {
  event.preventDefault()
  const armed = { case: select('case-name').value, count: Number(input('case-count').value) }
  act(async () => {
    await control('POST', config.paths.faults, armed)
    say('Failure case armed.')
    await loadFaults()
  })
})

form('fault-form').addEventListener('submit', (event) => {
  event.preventDefault()
  const fault = {
    operation: select('fault-operation').value,
    status: Number(select('fault-status').value),
    count: Number(input('fault-count').value),
    delayMs: Number(input('fault-delay').value),
  }
  act(async () => {
    await control('POST', config.paths.faults, fault)
    say('Fault queued.')
    await loadFaults()
  })
})

// Chaos

/** A chaos as the page words it: `5 % of calls, seed 7: 12 drawn, 1 failed`. */
function chaosText(chaos: ChaosReading): string {
  const cases =
    chaos.cases.length === config.failureCases.length ? 'every case' : chaos.cases.join(', ')
  const end = chaos.calls === undefined ? '' : `, ending after ${chaos.calls} calls`
  return `${Math.round(chaos.rate * 10_000) / 100} % of calls (${cases}), seed ${chaos.seed}${end}: ${chaos.drawn} drawn, ${chaos.failed} failed`
}

/** The chosen organisation's chaos path. */
const chaosPath = () => `${config.paths.organisations}/${encodeURIComponent(view.orgId)}/chaos`

async function loadChaos(): Promise<void> {
  const mock = await control<ChaosReading | null>('GET', config.paths.chaos)
  div('mock-chaos').textContent = mock
    ? `The mock's chaos, for every organisation without its own: ${chaosText(mock)}.`
    : 'No chaos for the whole mock.'
  if (!view.orgId) return
  const own = await control<ChaosReading | null>('GET', chaosPath())
  div('chaos-state').textContent = own
    ? `Chaos of ${view.orgId}: ${chaosText(own)}.`
    : `${view.orgId} has no chaos of its own${mock ? ': it meets the mock’s' : ''}.`
  button('chaos-end').disabled = own === null
}

select('chaos-case').replaceChildren(
  el('option', { value: '', text: 'every case of the call’s operation' }),
  ...config.failureCases.map(({ name }) => el('option', { value: name, text: name })),
)

form('chaos-form').addEventListener('submit', (event) => {
  event.preventDefault()
  const chosen = select('chaos-case').value
  const seed = input('chaos-seed').value
  const calls = input('chaos-calls').value
  const setting = {
    rate: Number(input('chaos-rate').value),
    ...(chosen && { cases: [chosen] }),
    ...(seed && { seed: Number(seed) }),
    ...(calls && { calls: Number(calls) }),
  }
  act(async () => {
    await control('PUT', chaosPath(), setting)
    say(`Chaos started for ${view.orgId}.`)
    await loadChaos()
  })
})

button('chaos-end').addEventListener('click', () => {
  act(async () => {
    await control('DELETE', chaosPath())
    say(`Chaos of ${view.orgId} ended.`)
    await loadChaos()
  })
})

// Coverage

/** What the clients met: the whole mock's, or the chosen organisation's calls. */
async function loadCoverage(): Promise<void> {
  const report = await control<CoverageReport>(
    'GET',
    config.paths.coverage + (view.orgId ? query({ orgId: view.orgId }) : ''),
  )
  const signature = view.orgId + JSON.stringify(report.items.map((item) => item.count))
  if (signature === view.coverageSignature) return
  view.coverageSignature = signature
  div('coverage-summary').textContent =
    `${view.orgId ? `The calls of ${view.orgId}` : 'The clients'} met ${report.met} of ` +
    `${report.total} answers the API may give.`
  tbody('coverage-groups').replaceChildren(
    ...report.groups.map(({ group, met, total }) =>
      el('tr', {}, [
        el('td', { text: group }),
        el('td', { text: String(met) }),
        el('td', { text: String(total) }),
      ]),
    ),
  )
  const itemRow = ({ id, description, count }: CoverageReport['items'][number]) =>
    el('li', {}, [
      el('span', { className: 'mono', text: id }),
      ` ${description}${count > 0 ? ` (${count}×)` : ''}`,
    ])
  div('coverage-never').replaceChildren(
    ...report.items.filter((item) => item.count === 0).map(itemRow),
  )
  div('coverage-met').replaceChildren(...report.items.filter((item) => item.count > 0).map(itemRow))
}

// Webhooks

async function loadWebhooks(): Promise<void> {
  const [endpoints, deliveries] = await Promise.all([
    control<WebhookEndpoint[]>('GET', config.paths.webhooks),
    control<WebhookDelivery[]>(
      'GET',
      config.paths.webhookDeliveries + query({ limit: String(config.deliveryRows) }),
    ),
  ])
  const signature = JSON.stringify([endpoints, deliveries])
  if (signature === view.webhookSignature) return
  view.webhookSignature = signature
  div('webhook-empty').hidden = endpoints.length > 0
  div('webhook-endpoints').hidden = endpoints.length === 0
  form('event-form').hidden = endpoints.length === 0
  tbody('webhook-table').replaceChildren(
    ...endpoints.map((e) =>
      el('tr', { 'data-id': e.id }, [
        el('td', { className: 'mono', text: e.id }),
        el('td', { className: 'mono', text: e.url }),
        el('td', { text: e.events ? e.events.join(', ') : 'all' }),
      ]),
    ),
  )
  div('delivery-empty').hidden = deliveries.length > 0
  $('delivery-table', HTMLTableElement).hidden = deliveries.length === 0
  tbody('delivery-table').replaceChildren(...deliveries.slice().reverse().map(deliveryRow))
}

/** One message to one endpoint: each attempt with its time and the status or why there was none. */
function deliveryRow(delivery: WebhookDelivery): HTMLElement {
  const attempts = delivery.attempts.map((attempt) =>
    el('div', { className: 'attempt' }, [
      el('span', { className: 'mono', text: attempt.at }),
      ' ',
      attempt.status != null
        ? el('span', {
            className: `status-${String(attempt.status).charAt(0)}`,
            text: String(attempt.status),
          })
        : el('span', { className: 'status-5', text: attempt.error || 'no answer' }),
    ]),
  )
  const outcome = delivery.delivered ? 'yes' : delivery.attempts.length ? 'no' : 'queued'
  return el('tr', { 'data-id': delivery.id, 'data-endpoint': delivery.endpoint }, [
    el('td', { className: 'mono', text: delivery.id }),
    el('td', { className: 'mono', text: delivery.endpoint }),
    el('td', { text: delivery.type }),
    el('td', {}, attempts.length ? attempts : ['–']),
    el('td', { className: 'outcome', text: outcome }),
  ])
}

function fillEventFields(): void {
  const fields = config.eventFields[select('event-type').value] ?? []
  div('event-fields').replaceChildren(
    ...fields.map((field) =>
      el('label', {}, [
        `${field.name} `,
        el('input', {
          'data-field': field.name,
          placeholder: field.placeholder,
          maxlength: '1024',
        }),
      ]),
    ),
  )
}

select('event-type').replaceChildren(
  ...Object.keys(config.eventFields).map((type) => el('option', { value: type, text: type })),
)
fillEventFields()
select('event-type').addEventListener('change', fillEventFields)

form('event-form').addEventListener('submit', (event) => {
  event.preventDefault()
  const body: Record<string, string> = {
    type: select('event-type').value,
    orgId: select('event-org').value,
    id: input('event-user').value,
  }
  for (const field of div('event-fields').querySelectorAll('input')) {
    if (field.value && field.dataset.field) body[field.dataset.field] = field.value
  }
  act(async () => {
    const raised = await control<RaisedWebhookEvent>('POST', config.paths.events, body)
    say(`Event ${raised.id} raised.`)
    await loadWebhooks()
  })
})

// Reset

function showConfirm(shown: boolean): void {
  button('reset').hidden = shown
  button('confirm-reset').hidden = !shown
  button('cancel-reset').hidden = !shown
}

button('reset').addEventListener('click', () => showConfirm(true))
button('cancel-reset').addEventListener('click', () => showConfirm(false))
button('confirm-reset').addEventListener('click', () => {
  showConfirm(false)
  act(async () => {
    await control('POST', config.paths.reset)
    // Said as soon as the server is back at its seed: the sections re-render one after another.
    say('Back to the seeded data.')
    closeDetail()
    view.offset = 0
    view.journalSignature = ''
    await loadOrganisations()
    await refresh()
  })
})

// Live updates

async function refresh(): Promise<void> {
  const changed = await loadJournal()
  await loadClocks()
  await loadGateway()
  await loadFaults()
  await loadChaos()
  if (changed) {
    await loadUsers()
    await loadDetail()
  }
  await loadSnapshots()
  await loadWebhooks()
  await loadCoverage()
}

function tick(): void {
  if (view.paused || view.busy > 0 || document.hidden) return
  act(refresh)
}

function start(): void {
  view.paused = false
  view.journalSignature = ''
  act(async () => {
    await loadOrganisations()
    await refresh()
    div('panels').hidden = false
  })
}

setInterval(tick, config.pollMs)
start()
