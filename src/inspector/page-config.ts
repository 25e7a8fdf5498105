import * as z from 'zod'
import { gatewayNames } from '../api/gateway.ts'
import { controlPaths } from '../base/control-paths.ts'
import { failureCases } from '../core/failure-cases.ts'
import { type DelayRole, type FailureKindName, failureKinds } from '../core/failure-kinds.ts'
import { operationErrors, statusesOf } from '../core/faults.ts'
import { apiRoutes } from '../core/routes.ts'
import { webViewPath } from '../web-view/answer.ts'
import { webhookEventTypes } from '../webhooks/events.ts'
import { maxUsersPerPage } from './queries.ts'

/**
 * A field of the event form, with what the event gets without it (its default, or else its
 * description) as placeholder.
 */
interface EventField {
  name: string
  placeholder: string
}

/** The fields the event form asks for beside the type and the user, for each named event. */
const eventFields: Record<string, EventField[]> = Object.fromEntries(
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

const identifyPath = apiRoutes.find((route) => route.operation === 'identify')?.path
if (!identifyPath) throw new Error('The route table has no identify route.')

/**
 * What the page's script needs to know of the server, derived from the tables that declare it:
 * plain data, which ./bundle.ts writes into the script.
 */
export const pageConfig = {
  paths: controlPaths,
  identifyPath,
  webViewPath,
  faultStatuses: Object.fromEntries(
    Object.keys(operationErrors).map((operation) => [
      operation,
      statusesOf(operation as keyof typeof operationErrors),
    ]),
  ) as Record<string, number[]>,
  /** Each failure case, with what its kind makes the client meet. */
  failureCases: failureCases.map(({ name, kind }) => ({
    name,
    summary: failureKinds[kind].summary,
  })),
  /** What each kind's `delayMs` is: a wait `before` it, or a span it is spread `over`. */
  delayRoles: Object.fromEntries(
    Object.entries(failureKinds).map(([name, kind]) => [name, kind.delay.role]),
  ) as Record<FailureKindName, DelayRole>,
  eventFields,
  /** What may stand in front of the API. */
  gatewayNames: [...gatewayNames],
  pageSize: Math.min(25, maxUsersPerPage),
  journalRows: 50,
  deliveryRows: 50,
  pollMs: 1000,
}

export type PageConfig = typeof pageConfig
