import type { z } from 'zod'
import { ApiError } from '../errors.ts'
import { isNestedDeeperThan, maxJsonDepth } from '../json-depth.ts'
import { orgKey } from '../model/indexes.ts'
import { parseOptions } from '../options.ts'
import type { RuleContext } from '../rules/context.ts'
import { webhookLimits } from '../webhooks/limits.ts'
import {
  customWebhookEventInputSchema,
  namedWebhookEventInputSchemas,
  type RaisedWebhookEvent,
} from '../webhooks/schemas.ts'
import { generateWebhookId } from '../webhooks/signature.ts'

/** What a `notifications.sent` raised without them says: a plain reminder. */
export const defaultNotification = {
  title: 'Time to learn',
  body: 'You have training waiting for you.',
  path: '/learning',
}

/** The course of a `user.course.started` raised without one, for a user with no learning path. */
export const defaultCourseId = 'course-1'

const encoder = new TextEncoder()

/**
 * The event `input` asks for, with a new message id: the named types get their user's fields
 * from the store (`user_id`, `custom_id`, `phone_number: null`), any other type its `data` as
 * given. A `TypeError` says what is wrong with the input; a user that does not exist is a 404
 * `User not found`.
 *
 * @example
 * buildWebhookEvent(ctx, { type: 'user.course.started', orgId: 'org-1', id: 'u-1' })
 * // { id: 'msg_…', object: 'event', type: 'user.course.started', api_version: '2022-11-15', timestamp, data }
 */
export function buildWebhookEvent(ctx: RuleContext, input: unknown): RaisedWebhookEvent {
  const { type } = parse(webhookEventTypeHead, input)
  let raised: { timestamp?: string | undefined; data: Record<string, unknown> }
  if (type === 'notifications.sent') {
    const event = parse(namedWebhookEventInputSchemas[type], input)
    const notification = {
      title: event.title ?? defaultNotification.title,
      body: event.body ?? defaultNotification.body,
      path: event.path ?? defaultNotification.path,
      ...userFields(ctx, event),
    }
    raised = { timestamp: event.timestamp, data: { notifications: [notification] } }
  } else if (type === 'user.course.started') {
    const event = parse(namedWebhookEventInputSchemas[type], input)
    const user = userFields(ctx, event)
    const courseId =
      event.courseId ?? ctx.db.learningProgress.get(user.user_id)?.learningPathId ?? defaultCourseId
    raised = { timestamp: event.timestamp, data: { ...user, course_id: courseId } }
  } else {
    raised = parse(customWebhookEventInputSchema, input)
  }
  const envelope = {
    object: 'event' as const,
    type,
    api_version: '2022-11-15' as const,
    timestamp: raised.timestamp ?? ctx.now().toISOString(),
    data: raised.data,
  }
  if (isNestedDeeperThan(envelope.data, maxJsonDepth)) {
    throw new TypeError(`Invalid event: its data nests deeper than ${maxJsonDepth} levels`)
  }
  const bytes = encoder.encode(JSON.stringify(envelope)).byteLength
  if (bytes > webhookLimits.eventBodyBytes) {
    throw new TypeError(
      `Invalid event: its body would be ${bytes} bytes, over the limit of ${webhookLimits.eventBodyBytes}`,
    )
  }
  return { id: generateWebhookId('msg'), ...envelope }
}

const webhookEventTypeHead = customWebhookEventInputSchema.pick({ type: true }).loose()

function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  return parseOptions(schema, input as z.input<S>, 'event')
}

function userFields(ctx: RuleContext, target: { orgId: string; id: string }) {
  const user = ctx.db.users.get(orgKey(target.orgId, target.id))
  if (!user) throw new ApiError('userNotFound')
  return { user_id: user.userId, custom_id: user.id, phone_number: null }
}
