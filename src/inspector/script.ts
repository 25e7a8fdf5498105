import { z } from 'zod'
import { controlPaths } from '../base/control-paths.ts'
import { operationErrors, statusesOf } from '../core/faults.ts'
import { apiRoutes } from '../core/routes.ts'
import { webViewPath } from '../web-view/answer.ts'
import { webhookEventTypes } from '../webhooks/events.ts'
import { maxUsersPerPage } from './queries.ts'

/**
 * The fields the event form asks for beside the type and the user, for each named event, each
 * with what the event gets without it (its default, or else its description) as placeholder.
 */
const eventFields = Object.fromEntries(
  Object.entries(webhookEventTypes).map(([type, { inputSchema }]) => {
    const { properties = {} } = z.toJSONSchema(inputSchema, { io: 'input' })
    return [
      type,
      Object.entries(properties)
        .filter(([name]) => !['type', 'orgId', 'id'].includes(name))
        .map(([name, field]) => ({ name, placeholder: placeholderOf(field) })),
    ]
  }),
)

function placeholderOf(field: z.core.JSONSchema._JSONSchema): string {
  if (typeof field === 'boolean') return ''
  return typeof field.default === 'string' ? field.default : (field.description ?? '')
}

/** What the page's script needs to know of the server, derived from the tables that declare it. */
const pageConfig = {
  paths: controlPaths,
  identifyPath: apiRoutes.find((route) => route.operation === 'identify')?.path,
  webViewPath,
  faultStatuses: Object.fromEntries(
    Object.keys(operationErrors).map((operation) => [
      operation,
      statusesOf(operation as keyof typeof operationErrors),
    ]),
  ),
  eventFields,
  pageSize: Math.min(25, maxUsersPerPage),
  journalRows: 50,
  deliveryRows: 50,
  pollMs: 1000,
}

/**
 * The inspector page's script, plain browser JavaScript: it polls the control endpoints, renders
 * what they answer with `textContent` only (never as markup), and sends the control token, once
 * given, as `Authorization: Bearer` with every data call. Polls and actions run one at a time, so
 * that what a poll renders is never older than the action before it. (No backslash or backtick in
 * it: it is one template literal.)
 */
export const inspectorJs = `'use strict';
const config = ${JSON.stringify(pageConfig)};
const tokenKey = 'identify-api-mock:control-token';
const $ = (id) => document.getElementById(id);
const view = { orgId: '', q: '', offset: 0, total: 0, detail: null, organisations: [],
  journalSignature: '', webhookSignature: '', paused: false, busy: 0 };
let token = sessionStorage.getItem(tokenKey);
let queue = Promise.resolve();

class NeedToken extends Error {}

/**
 * Runs work once whatever the page is already doing has finished (a poll, another action), and
 * shows its error if it fails: so that a poll never renders what the server held before an action.
 */
function act(work) {
  view.busy += 1;
  const run = queue.then(work).catch(report).finally(() => {
    view.busy -= 1;
  });
  queue = run;
  return run;
}

function el(tag, options, children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(options || {})) {
    if (name === 'text') node.textContent = value;
    else if (name === 'className') node.className = value;
    else node.setAttribute(name, value);
  }
  for (const child of children || []) node.append(child);
  return node;
}

/** '2025-03-18T12:44:33+00:00' as '2025-03-18 12:44' (UTC), for a narrow column. */
function shortTime(stamp) {
  return stamp ? stamp.slice(0, 16).replace('T', ' ') : '–';
}

function query(params) {
  return '?' + new URLSearchParams(params).toString();
}

/** A call to the control endpoints; 401 asks for the control token. */
async function control(method, path, body) {
  const headers = {};
  if (token) headers.authorization = 'Bearer ' + token;
  const response = await send(method, path, headers, body);
  if (response.status === 401) {
    askForToken(token ? 'The server refused that token: enter it again.' : '');
    throw new NeedToken();
  }
  return read(response);
}

/** A call to the API itself, with an organisation's API key. */
async function api(method, path, key, body) {
  return read(await send(method, path, { authorization: 'Bearer ' + key }, body));
}

function send(method, path, headers, body) {
  const init = { method, headers, cache: 'no-store', credentials: 'same-origin' };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  return fetch(path, init);
}

async function read(response) {
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (error) {
    data = null;
  }
  if (!response.ok) {
    const failure = new Error((data && data.message) || 'HTTP ' + response.status);
    failure.status = response.status;
    throw failure;
  }
  return data;
}

function say(message, isError) {
  const status = $('status');
  status.textContent = message;
  status.className = isError ? 'status error' : 'status';
  status.hidden = !message;
}

function report(error) {
  if (error instanceof NeedToken) return;
  say(error.message, true);
}

function askForToken(message) {
  view.paused = true;
  $('panels').hidden = true;
  $('token-panel').hidden = false;
  say(message, true);
  $('token-input').focus();
}

$('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  token = $('token-input').value;
  sessionStorage.setItem(tokenKey, token);
  $('token-input').value = '';
  $('token-panel').hidden = true;
  say('');
  start();
});

// Organisations

async function loadOrganisations() {
  const { organisations } = await control('GET', config.paths.organisations);
  view.organisations = organisations;
  const list = $('org-list');
  list.replaceChildren();
  for (const org of organisations) {
    const keys = org.apiKeys.length
      ? org.apiKeys.map((key) => el('code', { text: key }))
      : [el('span', { className: 'muted', text: '(no key known in clear)' })];
    const parts = [
      el('div', {}, [el('strong', { text: org.orgId }), ' ', el('span', { className: 'muted', text: org.name })]),
      el('div', { className: 'keys' }, ['API key: '].concat(keys)),
    ];
    if (org.curl) parts.push(el('pre', { text: org.curl }));
    list.append(el('div', { className: 'org', 'data-org': org.orgId }, parts));
  }
  for (const select of [$('org-select'), $('event-org')]) {
    const current = select.value;
    select.replaceChildren(...organisations.map((org) => el('option', { value: org.orgId, text: org.orgId })));
    if (organisations.some((org) => org.orgId === current)) select.value = current;
  }
  view.orgId = $('org-select').value;
}

// Users

async function loadUsers() {
  if (!view.orgId) return;
  const { total, users } = await control('GET', config.paths.users + query({
    orgId: view.orgId, q: view.q, offset: String(view.offset), limit: String(config.pageSize),
  }));
  view.total = total;
  const rows = users.map((user) => {
    const open = el('button', { type: 'button', className: 'open-user', text: 'Open' });
    open.addEventListener('click', () => openUser(view.orgId, user.id));
    return el('tr', { 'data-id': user.id }, [
      el('td', {}, [open]),
      el('td', { className: 'mono', text: user.id }),
      el('td', { className: 'mono', text: user.userId }),
      el('td', { text: user.name || '–' }),
      el('td', {}, [el('span', { className: 'badge ' + user.registrationStatus, text: user.registrationStatus })]),
      el('td', { text: user.learningPath || '–' }),
      el('td', { text: user.userGroups.join(', ') || '–' }),
      el('td', { text: shortTime(user.lastActive) }),
    ]);
  });
  $('user-table').tBodies[0].replaceChildren(...rows);
  const first = total === 0 ? 0 : view.offset + 1;
  const last = view.offset + users.length;
  $('user-count').textContent = total === 0
    ? 'No user matches.'
    : 'Users ' + first + '–' + last + ' of ' + total + ', newest first.';
  $('prev-page').disabled = view.offset === 0;
  $('next-page').disabled = last >= total;
}

let searchTimer = 0;
$('search').addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    view.q = $('search').value;
    view.offset = 0;
    act(loadUsers);
  }, 250);
});
$('user-search').addEventListener('submit', (event) => event.preventDefault());
$('org-select').addEventListener('change', () => {
  view.orgId = $('org-select').value;
  view.offset = 0;
  act(loadUsers);
});
$('prev-page').addEventListener('click', () => {
  view.offset = Math.max(0, view.offset - config.pageSize);
  act(loadUsers);
});
$('next-page').addEventListener('click', () => {
  view.offset += config.pageSize;
  act(loadUsers);
});

// One user

function openUser(orgId, id) {
  view.detail = { orgId, id };
  act(async () => {
    await loadDetail();
    $('user-detail').scrollIntoView({ block: 'nearest' });
  });
}

function table(headings, rows) {
  if (rows.length === 0) return el('p', { className: 'muted', text: 'None.' });
  return el('div', { className: 'scroll' }, [el('table', {}, [
    el('thead', {}, [el('tr', {}, headings.map((h) => el('th', { text: h })))]),
    el('tbody', {}, rows.map((cells) => el('tr', {}, cells.map((c) => el('td', { text: c == null ? '–' : String(c) }))))),
  ])]);
}

function more(shown, count) {
  return count > shown ? [el('p', { className: 'muted', text: 'The newest ' + shown + ' of ' + count + '.' })] : [];
}

async function loadDetail() {
  if (!view.detail) return;
  let user;
  try {
    user = await control('GET', config.paths.user + query(view.detail));
  } catch (error) {
    if (error.status === 404) {
      closeDetail();
      return;
    }
    throw error;
  }
  const p = user.profile;
  const name = [p.firstName, p.lastName].filter(Boolean).join(' ');
  $('detail-title').textContent = user.id + (name ? ' · ' + name : '');
  const facts = [
    ['Organisation', user.orgId], ['userId', p.userId], ['Status', p.registrationStatus],
    ['Registered', p.registeredAt], ['Last active', p.lastActive], ['Country', p.country],
    ['Region', p.region], ['Sex', p.sex], ['Age bracket', p.ageBracket],
    ['Groups', p.userGroups.join(', ')],
  ];
  const progress = user.progress
    ? [['Learning path', user.progress.name || user.progress.learningPathId], ['Started', user.progress.startDate],
      ['Due', user.progress.dueDate], ['Completed', user.progress.completedAt],
      ['Progress', user.progress.percentComplete + ' %']]
    : [['Learning path', null]];
  const dl = el('dl', {}, facts.concat(progress).flatMap(([term, value]) => [
    el('dt', { text: term }), el('dd', { text: value == null || value === '' ? '–' : value }),
  ]));
  $('detail-body').replaceChildren(
    dl,
    el('h3', { text: 'Sign-in tokens' }),
    table(['Issued', 'Expires', 'Redeemed'], user.tokens.map((t) => [t.issuedAt, t.expiresAt, t.redeemedAt])),
    ...more(user.tokens.length, user.tokenCount),
    el('h3', { text: 'Web-view sessions' }),
    table(['Started'], user.sessions.map((s) => [s.createdAt])),
    ...more(user.sessions.length, user.sessionCount),
    el('h3', { text: 'Certificates' }),
    table(['Title', 'Learning path', 'Issued'], user.certificates.map((c) => [c.title, c.learningPathId, c.issuedAt])),
    ...more(user.certificates.length, user.certificateCount),
  );
  $('user-detail').hidden = false;
}

function closeDetail() {
  view.detail = null;
  $('user-detail').hidden = true;
}

$('close-detail').addEventListener('click', closeDetail);

$('delete-user').addEventListener('click', () => {
  const target = view.detail;
  if (!target || !confirm('Delete ' + target.id + ' from ' + target.orgId + ' and everything it holds?')) return;
  act(async () => {
    await control('DELETE', config.paths.user + query(target));
    closeDetail();
    say('Deleted ' + target.id + '.');
    await loadUsers();
  });
});

$('open-web-view').addEventListener('click', async () => {
  const target = view.detail;
  const org = target && view.organisations.find((o) => o.orgId === target.orgId);
  const key = org && org.apiKeys[0];
  if (!key) {
    say('No API key of ' + (target ? target.orgId : 'this organisation') + ' is known in clear: the page cannot identify its users.', true);
    return;
  }
  // Opened now, while the click still allows a new tab; it is sent to the web view once identify answers.
  const tab = window.open('about:blank', '_blank');
  try {
    const answer = await api('POST', config.identifyPath, key, { id: target.id, orgId: target.orgId });
    const url = config.webViewPath + query({ orgId: target.orgId, token: answer.token, webview: 'true' });
    if (tab) {
      tab.opener = null;
      tab.location.href = url;
    } else {
      say('The browser blocked the new tab: allow pop-ups for this page.', true);
    }
  } catch (error) {
    if (tab) tab.close();
    report(error);
  }
});

// The journal

async function loadJournal() {
  const entries = await control('GET', config.paths.requests + query({ limit: String(config.journalRows) }));
  const signature = JSON.stringify(entries[entries.length - 1] || null) + entries.length;
  if (signature === view.journalSignature) return false;
  view.journalSignature = signature;
  const rows = entries.slice().reverse().map((entry) => el('tr', {}, [
    el('td', { className: 'mono', text: entry.time }),
    el('td', { text: entry.method }),
    el('td', { className: 'mono', text: entry.path }),
    el('td', { className: 'status-' + String(entry.status).charAt(0), text: String(entry.status) }),
    el('td', { text: String(entry.durationMs) }),
    el('td', { className: 'wrap' }, entry.request ? [el('pre', { text: JSON.stringify(entry.request) })] : []),
  ]));
  $('journal-table').tBodies[0].replaceChildren(...rows);
  return true;
}

// Faults

function fillFaultStatuses() {
  const statuses = config.faultStatuses[$('fault-operation').value] || [];
  $('fault-status').replaceChildren(...statuses.map((s) => el('option', { value: String(s), text: String(s) })));
}

$('fault-operation').replaceChildren(...Object.keys(config.faultStatuses).map((op) => el('option', { value: op, text: op })));
fillFaultStatuses();
$('fault-operation').addEventListener('change', fillFaultStatuses);

async function loadFaults() {
  const faults = await control('GET', config.paths.faults);
  $('fault-empty').hidden = faults.length > 0;
  $('fault-list').replaceChildren(...faults.map((f) => el('li', {
    text: f.operation + ' → ' + f.status + ', ' + f.remaining + ' more call' + (f.remaining === 1 ? '' : 's')
      + (f.delayMs ? ', after ' + f.delayMs + ' ms' : ''),
  })));
}

$('fault-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const fault = {
    operation: $('fault-operation').value,
    status: Number($('fault-status').value),
    count: Number($('fault-count').value),
    delayMs: Number($('fault-delay').value),
  };
  act(async () => {
    await control('POST', config.paths.faults, fault);
    say('Fault queued.');
    await loadFaults();
  });
});

// Webhooks

async function loadWebhooks() {
  const [endpoints, deliveries] = await Promise.all([
    control('GET', config.paths.webhooks),
    control('GET', config.paths.webhookDeliveries + query({ limit: String(config.deliveryRows) })),
  ]);
  const signature = JSON.stringify([endpoints, deliveries]);
  if (signature === view.webhookSignature) return;
  view.webhookSignature = signature;
  $('webhook-empty').hidden = endpoints.length > 0;
  $('webhook-endpoints').hidden = endpoints.length === 0;
  $('event-form').hidden = endpoints.length === 0;
  $('webhook-table').tBodies[0].replaceChildren(...endpoints.map((e) => el('tr', { 'data-id': e.id }, [
    el('td', { className: 'mono', text: e.id }),
    el('td', { className: 'mono', text: e.url }),
    el('td', { text: e.events ? e.events.join(', ') : 'all' }),
  ])));
  $('delivery-empty').hidden = deliveries.length > 0;
  $('delivery-table').hidden = deliveries.length === 0;
  $('delivery-table').tBodies[0].replaceChildren(...deliveries.slice().reverse().map(deliveryRow));
}

/** One message to one endpoint: each attempt with its time and the status or why there was none. */
function deliveryRow(delivery) {
  const attempts = delivery.attempts.map((attempt) => el('div', { className: 'attempt' }, [
    el('span', { className: 'mono', text: attempt.at }), ' ',
    attempt.status != null
      ? el('span', { className: 'status-' + String(attempt.status).charAt(0), text: String(attempt.status) })
      : el('span', { className: 'status-5', text: attempt.error || 'no answer' }),
  ]));
  const outcome = delivery.delivered ? 'yes' : delivery.attempts.length ? 'no' : 'queued';
  return el('tr', { 'data-id': delivery.id, 'data-endpoint': delivery.endpoint }, [
    el('td', { className: 'mono', text: delivery.id }),
    el('td', { className: 'mono', text: delivery.endpoint }),
    el('td', { text: delivery.type }),
    el('td', {}, attempts.length ? attempts : ['–']),
    el('td', { className: 'outcome', text: outcome }),
  ]);
}

function fillEventFields() {
  const fields = config.eventFields[$('event-type').value] || [];
  $('event-fields').replaceChildren(...fields.map((field) => el('label', {}, [
    field.name + ' ',
    el('input', { 'data-field': field.name, placeholder: field.placeholder, maxlength: '1024' }),
  ])));
}

$('event-type').replaceChildren(...Object.keys(config.eventFields).map((type) => el('option', { value: type, text: type })));
fillEventFields();
$('event-type').addEventListener('change', fillEventFields);

$('event-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const body = { type: $('event-type').value, orgId: $('event-org').value, id: $('event-user').value };
  for (const input of $('event-fields').querySelectorAll('input')) {
    if (input.value) body[input.dataset.field] = input.value;
  }
  act(async () => {
    const raised = await control('POST', config.paths.events, body);
    say('Event ' + raised.id + ' raised.');
    await loadWebhooks();
  });
});

// Reset

function showConfirm(shown) {
  $('reset').hidden = shown;
  $('confirm-reset').hidden = !shown;
  $('cancel-reset').hidden = !shown;
}

$('reset').addEventListener('click', () => showConfirm(true));
$('cancel-reset').addEventListener('click', () => showConfirm(false));
$('confirm-reset').addEventListener('click', () => {
  showConfirm(false);
  act(async () => {
    await control('POST', config.paths.reset);
    // Said as soon as the server is back at its seed: the sections re-render one after another.
    say('Back to the seeded data.');
    closeDetail();
    view.offset = 0;
    view.journalSignature = '';
    await loadOrganisations();
    await refresh();
  });
});

// Live updates

async function refresh() {
  const changed = await loadJournal();
  await loadFaults();
  if (changed) {
    await loadUsers();
    await loadDetail();
  }
  await loadWebhooks();
}

function tick() {
  if (view.paused || view.busy > 0 || document.hidden) return;
  act(refresh);
}

function start() {
  view.paused = false;
  view.journalSignature = '';
  act(async () => {
    await loadOrganisations();
    await refresh();
    $('panels').hidden = false;
  });
}

setInterval(tick, config.pollMs);
start();
`
