/**
 * The inspector page's stylesheet. At 390 px the page never scrolls sideways: tables scroll in
 * their own box, and long keys, curl lines and request bodies wrap.
 */
export const inspectorCss = `
*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
.contents { display: contents; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; background: #f3f4f7; color: #1d2330; }
h1 { font-size: 18px; margin: 0; font-weight: 600; }
h2 { font-size: 17px; margin: 0 0 10px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
code, pre, .mono { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { margin: 4px 0 0; padding: 8px; background: #f3f4f7; border-radius: 6px;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.bar { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; justify-content: space-between;
  padding: 10px 16px; background: #24305e; color: #fff; }
.bar .muted { color: #c5cbe0; font-weight: 400; }
.bar-inline { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; justify-content: space-between; }
.bar-inline h2 { margin: 0; overflow-wrap: anywhere; }
main { max-width: 1240px; margin: 0 auto; padding: 12px; }
#panels { display: grid; gap: 12px; grid-template-columns: minmax(0, 1fr); }
@media (min-width: 1100px) {
  #panels { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); grid-auto-flow: row dense; }
  #users, #user-detail, #journal, #webhooks { grid-column: 1 / -1; }
}
.card { background: #fff; border-radius: 10px; padding: 14px; box-shadow: 0 1px 3px rgba(0, 0, 0, .12);
  min-width: 0; }
.row { display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-end; margin: 8px 0; }
label { display: flex; flex-direction: column; gap: 2px; font-size: 13px; color: #5b6478; max-width: 100%; }
input, select { font: inherit; color: inherit; padding: 5px 8px; border: 1px solid #c8cdd8; border-radius: 6px;
  background: #fff; max-width: 100%; min-width: 0; }
input[type=number] { width: 7em; }
button { font: inherit; border: 1px solid #24305e; border-radius: 6px; padding: 5px 12px; cursor: pointer;
  background: #fff; color: #24305e; }
button:disabled { opacity: .45; cursor: default; }
.bar button { border-color: #fff; }
button.danger { background: #b3261e; border-color: #b3261e; color: #fff; }
.muted { color: #5b6478; }
.status { margin: 0 0 12px; padding: 8px 12px; border-radius: 6px; background: #e3f4e8; color: #1c6b34; }
.status.error { background: #fde7e6; color: #8c1d18; }
.scroll { overflow-x: auto; max-width: 100%; -webkit-overflow-scrolling: touch; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; padding: 5px 6px; border-bottom: 1px solid #e6e8ee; white-space: nowrap;
  vertical-align: top; }
th { font-size: 13px; color: #5b6478; font-weight: 600; }
td.wrap { white-space: normal; min-width: 16em; }
.status-2 { color: #1c6b34; font-weight: 600; }
.status-3 { color: #1f4f99; font-weight: 600; }
.status-4 { color: #8a5a00; font-weight: 600; }
.status-5 { color: #b3261e; font-weight: 600; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 13px; background: #eceff5; }
.badge.registered { background: #e3f4e8; color: #1c6b34; }
.badge.unregistered { background: #fff3d6; color: #7a5500; }
.badge.archived { background: #eceff5; color: #5b6478; }
.org { padding: 8px 0; border-bottom: 1px solid #e6e8ee; }
.org:last-child { border-bottom: 0; }
.keys code { overflow-wrap: anywhere; }
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 4px 14px; margin: 0; }
dt { color: #5b6478; }
dd { margin: 0; overflow-wrap: anywhere; }
ul { margin: 0; padding-left: 20px; }
`
