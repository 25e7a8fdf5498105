/**
 * The path of every control endpoint and of the inspector page's files: the control route table
 * and the page's script both read them from here.
 *
 * @example
 * await fetch(`${url}${controlPaths.reset}`, { method: 'POST' })
 */
export const controlPaths = {
  root: '/__mock',
  inspector: '/__mock/',
  inspectorStyle: '/__mock/inspector.css',
  inspectorScript: '/__mock/inspector.js',
  openApi: '/__mock/openapi.json',
  reset: '/__mock/reset',
  faults: '/__mock/faults',
  state: '/__mock/state',
  requests: '/__mock/requests',
  health: '/__mock/health',
  organisations: '/__mock/organisations',
  users: '/__mock/users',
  user: '/__mock/user',
  webhooks: '/__mock/webhooks',
  webhookDeliveries: '/__mock/webhooks/deliveries',
  events: '/__mock/events',
  shapes: '/__mock/shapes',
  coverage: '/__mock/coverage',
  failures: '/__mock/failures',
  clock: '/__mock/clock',
  chaos: '/__mock/chaos',
} as const
