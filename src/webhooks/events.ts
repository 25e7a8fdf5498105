import * as z from 'zod'
import { ApiError, InvalidInput, parseOptions } from '../base/errors.ts'
import { isNestedDeeperThan, maxJsonDepth } from '../base/json-depth.ts'
import type { Clock } from '../base/time.ts'
import { webhookLimits } from './limits.ts'
import { generateWebhookId } from './signature.ts'
import {
  type RaisedWebhookEvent,
  webhookEnvelopeSchema,
  webhookEventTypeSchema,
} from './webhook-schemas.ts'

/** What building an event reads of the mock: its users, their learning paths, its clock. */
export interface EventContext {
  now: Clock
  /** The user `id` of `orgId`, if there is one. */
  user(orgId: string, id: string): { userId: string; id: string } | undefined
  /** The learning path of a user (by its `userId`), if it has one. */
  learningPathOf(userId: string): string | null | undefined
}

/**
 * An event type the mock knows by name: everything about it in one row. `raise` builds its
 * `data` from what a test gives, `data` is what is delivered, and the OpenAPI document names it
 * `component`, with `summary` and `description`.
 */
interface WebhookEventRow<C extends string, I extends z.ZodRawShape, D extends z.ZodType> {
  /** Its name among the OpenAPI components, e.g. `NotificationsSentEvent`. */
  component: C
  /** The OpenAPI webhook's summary, e.g. `Notifications sent`. */
  summary: string
  /** What the OpenAPI document says of its delivered body. */
  description: string
  /**
   * The fields a test gives to raise it, beside `type` and `timestamp`. What an omitted field
   * becomes is its `default`, or else its description: the inspector's form shows either.
   */
  input: I
  /** The `data` of its deliveries. */
  data: D
  /** The `data` of one event, from the input and the store; throws `ApiError` for a missing user. */
  build(ctx: EventContext, input: z.output<z.ZodObject<I>>): z.input<D>
}

/** A row of {@link webhookEventTypes} with what follows from it: the input and delivered schemas. */
function eventType<const T extends string>(type: T) {
  return <const C extends string, I extends z.ZodRawShape, D extends z.ZodType>(
    row: WebhookEventRow<C, I, D>,
  ) => {
    const input = z.strictObject({ type: z.literal(type), ...row.input, timestamp: eventTimestamp })
    return {
      ...row,
      /** What `POST /__mock/events` and `api.events.raise` take for this type. */
      inputSchema: input,
      /** A whole delivery of this type, as a receiver parses it. */
      schema: webhookEnvelopeSchema.extend({ type: z.literal(type), data: row.data }),
      /** Parses `body` as this type's input and builds its timestamp and data. */
      raise(ctx: EventContext, body: unknown): RaisedEvent {
        const event = parse(input, body) as z.output<z.ZodObject<I>> & RaisedEvent
        return { timestamp: event.timestamp, data: row.build(ctx, event) as Data }
      },
    }
  }
}

type Data = Record<string, unknown>
interface RaisedEvent {
  timestamp?: string | undefined
  data: Data
}

/** When a raised event happened: ISO 8601 with an offset, stored as milliseconds and `Z`. */
const eventTimestamp = z.iso
  .datetime({ offset: true })
  .transform((text) => new Date(text).toISOString())
  .optional()
  .describe('now (ISO 8601)')

/** The user an event is for. */
const userTarget = { orgId: z.string().min(1), id: z.string().min(1) }

/** The user's fields of a delivery. */
const userFields = {
  /** The platform's internal user id: the API's `userId`. */
  user_id: z.string(),
  /** The caller's own `id` from identify. */
  custom_id: z.string().nullable(),
  phone_number: z.string().nullable(),
}

/**
 * One notification of a `notifications.sent` event, for one user.
 *
 * @example notificationSchema.parse({ title, body, path: '/learning', user_id, custom_id, phone_number: null })
 */
const notificationSchema = z.object({
  title: z.string(),
  body: z.string(),
  /** The web-view path to open when tapped, e.g. `/learning`. */
  path: z.string(),
  ...userFields,
})
export type Notification = z.output<typeof notificationSchema>

/** The course of a `user.course.started` raised without one, for a user with no learning path. */
const defaultCourseId = 'course-1'

/**
 * The event types the mock knows by name, one row each; a test raises any other type with its
 * `data` given whole (the platform's catalogue is not public).
 */
export const webhookEventTypes = {
  'notifications.sent': eventType('notifications.sent')({
    component: 'NotificationsSentEvent',
    summary: 'Notifications sent',
    description:
      'Reminders and admin notifications, one item per user, for the receiver to forward as pushes.',
    input: {
      ...userTarget,
      title: z.string().default('Time to learn'),
      body: z.string().default('You have training waiting for you.'),
      path: z.string().default('/learning'),
    },
    data: z.object({ notifications: z.array(notificationSchema) }),
    build: (ctx, { title, body, path, ...target }) => ({
      notifications: [{ title, body, path, ...userOf(ctx, target) }],
    }),
  }),
  'user.course.started': eventType('user.course.started')({
    component: 'UserCourseStartedEvent',
    summary: 'User started a course',
    description: 'A user started a course.',
    input: {
      ...userTarget,
      courseId: z
        .string()
        .min(1)
        .optional()
        .describe(`the user's learning path, else ${defaultCourseId}`),
    },
    data: z.object({ ...userFields, course_id: z.string() }),
    build: (ctx, { courseId, ...target }) => {
      const user = userOf(ctx, target)
      const course = courseId ?? ctx.learningPathOf(user.user_id) ?? defaultCourseId
      return { ...user, course_id: course }
    },
  }),
}

type EventTypes = typeof webhookEventTypes

/**
 * A `notifications.sent` delivery: reminders and admin notifications, to forward as pushes.
 *
 * @example notificationsSentEventSchema.parse(JSON.parse(deliveredBody))
 */
export const notificationsSentEventSchema = webhookEventTypes['notifications.sent'].schema
export type NotificationsSentEvent = z.output<typeof notificationsSentEventSchema>

/**
 * A `user.course.started` delivery.
 *
 * @example userCourseStartedEventSchema.parse(JSON.parse(deliveredBody))
 */
export const userCourseStartedEventSchema = webhookEventTypes['user.course.started'].schema
export type UserCourseStartedEvent = z.output<typeof userCourseStartedEventSchema>

/**
 * Any other event a test raises: its type and its `data`, given whole.
 *
 * @example customWebhookEventInputSchema.parse({ type: 'user.registered', data: { user_id: 'u' } })
 */
const customWebhookEventInputSchema = z.strictObject({
  type: webhookEventTypeSchema,
  data: z.record(z.string(), z.unknown()),
  timestamp: eventTimestamp,
})

/** An event of one of the named types, for one user: its input. */
export type UserEventInput = {
  [K in keyof EventTypes]: z.input<EventTypes[K]['inputSchema']>
}[keyof EventTypes]

/** An event to raise: one of the named types, or any other with its `data` whole. */
export type WebhookEventInput = UserEventInput | z.input<typeof customWebhookEventInputSchema>

/**
 * {@link WebhookEventInput} as a schema, for the documents that describe it (`POST
 * /__mock/events`): a named type's input, or any other type with its `data`. Raising an event
 * reads the input by its type (see {@link buildWebhookEvent}), not with this union.
 *
 * @example webhookEventInputSchema.safeParse({ type: 'user.course.started', orgId: 'org-1', id: 'u-1' }).success // true
 */
export const webhookEventInputSchema = z.union([
  ...Object.values(webhookEventTypes).map((row) => row.inputSchema),
  customWebhookEventInputSchema,
])

const encoder = new TextEncoder()

/**
 * The event `input` asks for, with a new message id: a named type built by its row of
 * {@link webhookEventTypes}, any other type with its `data` as given. A `TypeError` says what is
 * wrong with the input; a user that does not exist is a 404 `User not found`.
 *
 * @example
 * buildWebhookEvent(ctx, { type: 'user.course.started', orgId: 'org-1', id: 'u-1' })
 * // { id: 'msg_…', object: 'event', type: 'user.course.started', api_version: '2022-11-15', timestamp, data }
 */
export function buildWebhookEvent(ctx: EventContext, input: unknown): RaisedWebhookEvent {
  const { type } = parse(webhookEventTypeHead, input)
  const named = Object.hasOwn(webhookEventTypes, type)
    ? webhookEventTypes[type as keyof EventTypes]
    : undefined
  const raised = named ? named.raise(ctx, input) : parse(customWebhookEventInputSchema, input)
  const envelope = {
    object: 'event' as const,
    type,
    api_version: '2022-11-15' as const,
    timestamp: raised.timestamp ?? ctx.now().toISOString(),
    data: raised.data,
  }
  if (isNestedDeeperThan(envelope.data, maxJsonDepth)) {
    throw new InvalidInput(`Invalid event: its data nests deeper than ${maxJsonDepth} levels`)
  }
  const bytes = encoder.encode(JSON.stringify(envelope)).byteLength
  if (bytes > webhookLimits.eventBodyBytes) {
    throw new InvalidInput(
      `Invalid event: its body would be ${bytes} bytes, over the limit of ${webhookLimits.eventBodyBytes}`,
    )
  }
  return { id: generateWebhookId('msg'), ...envelope }
}

const webhookEventTypeHead = customWebhookEventInputSchema.pick({ type: true }).loose()

function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  return parseOptions(schema, input as z.input<S>, 'event')
}

function userOf(ctx: EventContext, target: { orgId: string; id: string }) {
  const user = ctx.user(target.orgId, target.id)
  if (!user) throw new ApiError('userNotFound')
  return { user_id: user.userId, custom_id: user.id, phone_number: null }
}
