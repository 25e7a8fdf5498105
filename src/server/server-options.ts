import * as z from 'zod'
import { controlOptionsSchema } from '../control/control.ts'
import { mockApiOptionsSchema, wholeNumber } from '../options/mock-api-options.ts'
import { frontDoorOptionsSchema } from './front-door.ts'

/** Where the server listens. */
const listenOptionsSchema = z.object({
  port: wholeNumber(0, 65_535).default(4010).describe('the port to listen on; 0 picks a free one'),
  host: z.string().min(1).default('127.0.0.1').describe('the address to bind'),
})

/** The timeouts of `node:http`'s server, as `nodeServerOptions` gives them to it. */
const timeoutOptionsSchema = z.object({
  headersTimeoutMs: wholeNumber(1)
    .default(10_000)
    .describe(
      'a client must have sent its request headers within this many milliseconds (408 and closed otherwise)',
    ),
  requestTimeoutMs: wholeNumber(1)
    .default(30_000)
    .describe(
      'a client must have sent its whole request within this many milliseconds (408 and closed otherwise)',
    ),
  keepAliveTimeoutMs: wholeNumber(1)
    .default(5_000)
    .describe('an idle keep-alive connection is closed after this many milliseconds'),
})

/** The request listener's bounds, as `createRequestListener` takes them. */
const listenerOptionsSchema = z.object({
  maxRequestsPerSocket: wholeNumber(0)
    .default(1_000)
    .describe('a connection is closed after this many requests (0: no limit)'),
  maxConnections: wholeNumber(1)
    .default(1_000)
    .describe(
      'connections open at once at most: one more closes the connection idle the longest; when every one has a request under way, its request answers 503 and it is closed',
    ),
})

/** Where the records are kept beyond the process. */
const storeOptionsSchema = z.object({
  stateFile: z
    .string()
    .min(1)
    .optional()
    .describe(
      "keeps the records in this SQLite database: loaded at start (the added organisations on top), each operation's changes committed to disk before it is answered",
    ),
})

/**
 * The server's own options, grouped by what takes them: each group is handed whole to the part
 * of the server it configures, so that an option added to a group reaches that part with no other
 * line (`startServer` picks nothing by hand). `mock` is `createMockApi`'s.
 *
 * @example Object.keys(serverOptionGroups.listener.shape) // ['maxRequestsPerSocket', 'maxConnections']
 */
export const serverOptionGroups = {
  mock: mockApiOptionsSchema,
  listen: listenOptionsSchema,
  control: controlOptionsSchema,
  frontDoor: frontDoorOptionsSchema,
  timeouts: timeoutOptionsSchema,
  listener: listenerOptionsSchema,
  store: storeOptionsSchema,
}

type Groups = typeof serverOptionGroups

/**
 * The options of `startServer` and of `serve`: the mock's, and the server's own, every group of
 * {@link serverOptionGroups}. The CLI's flags are read from it (defaults, ranges, messages), so it
 * is the one place they are kept.
 *
 * @example
 * serverOptionsSchema.parse({ port: 0, control: false }).host // '127.0.0.1'
 */
export const serverOptionsSchema = mockApiOptionsSchema
  .extend({
    ...listenOptionsSchema.shape,
    ...controlOptionsSchema.shape,
    ...frontDoorOptionsSchema.shape,
    ...timeoutOptionsSchema.shape,
    ...listenerOptionsSchema.shape,
    ...storeOptionsSchema.shape,
  })
  .superRefine((options, context) => {
    if (options.headersTimeoutMs > options.requestTimeoutMs) {
      context.addIssue({
        code: 'custom',
        message: 'must not be longer than requestTimeoutMs',
        path: ['headersTimeoutMs'],
      })
    }
    if (!options.control && options.controlToken !== undefined) {
      context.addIssue({
        code: 'custom',
        message: 'needs the control endpoints: drop control: false (--no-control)',
        path: ['controlToken'],
      })
    }
  })

export type ServerOptions = z.input<typeof serverOptionsSchema>
export type ResolvedServerOptions = z.output<typeof serverOptionsSchema>

/** Resolved options split by group: each group's options, as its schema gives them. */
export type SplitOptions<G extends Record<string, z.ZodObject> = Groups> = {
  [K in keyof G]: z.output<G[K]>
}

/**
 * Resolved server options split into their groups (see {@link serverOptionGroups}), read from the
 * groups' schemas rather than listed: an option added to a group is in that group's part with no
 * other line. An option no group declares is a bug, and throws.
 *
 * @example
 * const { mock, listen } = splitServerOptions(serverOptionsSchema.parse({ port: 0, maxUsers: 10 }))
 * listen.port // 0
 * mock.maxUsers // 10
 */
export function splitServerOptions<G extends Record<string, z.ZodObject> = Groups>(
  options: Record<string, unknown>,
  groups: G = serverOptionGroups as unknown as G,
): SplitOptions<G> {
  const split: Record<string, Record<string, unknown>> = {}
  const groupOf = new Map<string, string>()
  for (const [group, schema] of Object.entries(groups)) {
    split[group] = {}
    for (const name of Object.keys(schema.shape)) groupOf.set(name, group)
  }
  for (const [name, value] of Object.entries(options)) {
    const group = groupOf.get(name)
    if (group === undefined) throw new TypeError(`the server option ${name} belongs to no group`)
    ;(split[group] as Record<string, unknown>)[name] = value
  }
  return split as SplitOptions<G>
}
