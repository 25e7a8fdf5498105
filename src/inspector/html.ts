import { controlPaths } from '../base/control-paths.ts'

/**
 * The inspector page's markup: no data and no inline script or style (its policy forbids both);
 * the script fills it in from the control endpoints.
 */
export const inspectorHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>identify-api-mock inspector</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${controlPaths.inspectorStyle}">
<script src="${controlPaths.inspectorScript}" defer></script>
</head>
<body>
<header class="bar">
  <h1>identify-api-mock <span class="muted">inspector</span></h1>
  <div class="row">
    <button id="reset" type="button">Reset</button>
    <button id="confirm-reset" type="button" class="danger" hidden>Confirm reset</button>
    <button id="cancel-reset" type="button" hidden>Cancel</button>
  </div>
</header>
<main>
<p id="status" class="status" role="status" hidden></p>

<section id="token-panel" class="card" hidden>
  <h2>Control token</h2>
  <p>This server guards its control endpoints with <code>--control-token</code>. Enter it once; this tab keeps it until it is closed.</p>
  <form id="token-form" class="row">
    <label>Control token <input id="token-input" type="password" autocomplete="off" required></label>
    <button type="submit">Use token</button>
  </form>
</section>

<div id="panels" hidden>
<section id="organisations" class="card">
  <h2>Organisations</h2>
  <p id="mock-clock" class="muted"></p>
  <div id="org-list"></div>
</section>

<section id="users" class="card">
  <h2>Users</h2>
  <form id="user-search" class="row">
    <label>Organisation <select id="org-select"></select></label>
    <label>Search <input id="search" type="search" placeholder="id, userId or name" maxlength="200"></label>
  </form>
  <p id="org-clock" class="muted"></p>
  <p id="user-count" class="muted"></p>
  <div class="scroll">
    <table id="user-table">
      <thead><tr><th></th><th>id</th><th>userId</th><th>Name</th><th>Status</th><th>Learning path</th><th>Groups</th><th>Last active</th></tr></thead>
      <tbody></tbody>
    </table>
  </div>
  <div class="row">
    <button id="prev-page" type="button">Previous</button>
    <button id="next-page" type="button">Next</button>
  </div>
</section>

<section id="snapshots" class="card">
  <h2>Snapshots <span class="muted">(of the organisation chosen under Users)</span></h2>
  <p id="snapshot-empty" class="muted">No snapshot of this organisation.</p>
  <div class="scroll">
    <table id="snapshot-table" hidden>
      <thead><tr><th>Name</th><th>Saved</th><th>Users</th><th>Bytes</th><th></th></tr></thead>
      <tbody></tbody>
    </table>
  </div>
  <form id="snapshot-form" class="row">
    <label>Name <input id="snapshot-name" required maxlength="64" pattern="[A-Za-z0-9._\\-]{1,64}" placeholder="A-Z a-z 0-9 . _ -"></label>
    <button type="submit">Save snapshot</button>
  </form>
</section>

<section id="user-detail" class="card" hidden>
  <div class="bar-inline">
    <h2 id="detail-title"></h2>
    <div class="row">
      <button id="open-web-view" type="button">Open web view</button>
      <button id="delete-user" type="button" class="danger">Delete</button>
      <button id="close-detail" type="button">Close</button>
    </div>
  </div>
  <div id="detail-body"></div>
</section>

<section id="journal" class="card">
  <h2>Requests <span class="muted">(newest first, live)</span></h2>
  <div class="scroll">
    <table id="journal-table">
      <thead><tr><th>Time</th><th>Method</th><th>Path</th><th>Status</th><th>ms</th><th>Failure</th><th>Request</th></tr></thead>
      <tbody></tbody>
    </table>
  </div>
</section>

<section id="faults" class="card">
  <h2>Faults</h2>
  <p id="fault-empty" class="muted">No fault queued.</p>
  <ul id="fault-list"></ul>
  <form id="fault-form" class="row">
    <label>Operation <select id="fault-operation"></select></label>
    <label>Status <select id="fault-status"></select></label>
    <label>Count <input id="fault-count" type="number" min="1" value="1" required></label>
    <label>Delay (ms) <input id="fault-delay" type="number" min="0" max="600000" value="0" required></label>
    <button type="submit">Queue fault</button>
  </form>
  <form id="case-form" class="row">
    <label>Failure case <select id="case-name"></select></label>
    <label>Count <input id="case-count" type="number" min="1" value="1" required></label>
    <button type="submit">Arm case</button>
  </form>
  <p id="case-summary" class="muted"></p>
</section>

<section id="chaos" class="card">
  <h2>Chaos <span class="muted">(failures at a rate, for the organisation chosen under Users)</span></h2>
  <p id="chaos-state"></p>
  <p id="mock-chaos" class="muted"></p>
  <form id="chaos-form" class="row">
    <label>Rate (0 to 1) <input id="chaos-rate" type="number" min="0" max="1" step="any" value="0.05" required></label>
    <label>Cases <select id="chaos-case"></select></label>
    <label>Seed <input id="chaos-seed" type="number" step="1" placeholder="drawn"></label>
    <label>Calls <input id="chaos-calls" type="number" min="1" step="1" placeholder="no end"></label>
    <button type="submit">Start chaos</button>
    <button id="chaos-end" type="button">End chaos</button>
  </form>
</section>

<section id="coverage" class="card">
  <h2>Coverage <span class="muted">(what the clients met of every answer the API may give, this run)</span></h2>
  <p id="coverage-summary"></p>
  <div class="scroll">
    <table id="coverage-groups">
      <thead><tr><th>Group</th><th>Met</th><th>Total</th></tr></thead>
      <tbody></tbody>
    </table>
  </div>
  <h3>Never met</h3>
  <ul id="coverage-never"></ul>
  <h3>Met</h3>
  <ul id="coverage-met"></ul>
</section>

<section id="webhooks" class="card">
  <h2>Webhooks</h2>
  <p id="webhook-empty" class="muted" hidden>No webhook endpoint. Start the server with
    <code>--webhook-url &lt;url&gt;</code> (repeatable), or add one with <code>POST ${controlPaths.webhooks}</code>
    <code>{"url": "…"}</code>; it shows here within a second.</p>
  <div id="webhook-endpoints" hidden>
    <h3>Endpoints</h3>
    <div class="scroll">
      <table id="webhook-table">
        <thead><tr><th>id</th><th>URL</th><th>Events</th></tr></thead>
        <tbody></tbody>
      </table>
    </div>
  </div>
  <h3>Deliveries <span class="muted">(newest first, live)</span></h3>
  <p id="delivery-empty" class="muted">No delivery yet.</p>
  <div class="scroll">
    <table id="delivery-table" hidden>
      <thead><tr><th>Message</th><th>Endpoint</th><th>Type</th><th>Attempts</th><th>Delivered</th></tr></thead>
      <tbody></tbody>
    </table>
  </div>
  <form id="event-form" hidden>
    <h3>Raise an event</h3>
    <div class="row">
      <label>Type <select id="event-type"></select></label>
      <label>Organisation <select id="event-org"></select></label>
      <label>User id <input id="event-user" required maxlength="1024"></label>
      <span id="event-fields" class="contents"></span>
      <button type="submit">Raise event</button>
    </div>
  </form>
</section>
</div>
</main>
</body>
</html>
`
