import { controlPaths } from '../base/control-paths.ts'

/** One control endpoint: its method and its path, `:name` standing for a path parameter. */
export interface ControlEndpoint {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  path: string
}

/**
 * The control endpoints a client calls, by name: the route table (`control.ts`) serves each one,
 * and the HTTP client (`identify-api-mock/client`) calls it, both from this table, so that a path
 * is written once.
 *
 * @example
 * controlEndpoints.putUser // { method: 'PUT', path: '/__mock/organisations/:orgId/users/:id' }
 */
export const controlEndpoints = {
  reset: { method: 'POST', path: controlPaths.reset },
  addFault: { method: 'POST', path: controlPaths.faults },
  listFaults: { method: 'GET', path: controlPaths.faults },
  state: { method: 'GET', path: controlPaths.state },
  requests: { method: 'GET', path: controlPaths.requests },
  health: { method: 'GET', path: controlPaths.health },
  listOrganisations: { method: 'GET', path: controlPaths.organisations },
  createOrganisation: { method: 'POST', path: controlPaths.organisations },
  removeOrganisation: { method: 'DELETE', path: `${controlPaths.organisations}/:orgId` },
  putUser: { method: 'PUT', path: `${controlPaths.organisations}/:orgId/users/:id` },
  setShapes: { method: 'PUT', path: `${controlPaths.organisations}/:orgId/shapes` },
  shapeCases: { method: 'GET', path: controlPaths.shapes },
  addWebhook: { method: 'POST', path: controlPaths.webhooks },
  listWebhooks: { method: 'GET', path: controlPaths.webhooks },
  webhookDeliveries: { method: 'GET', path: controlPaths.webhookDeliveries },
  removeWebhook: { method: 'DELETE', path: `${controlPaths.webhooks}/:id` },
  raiseEvent: { method: 'POST', path: controlPaths.events },
} as const satisfies Record<string, ControlEndpoint>
