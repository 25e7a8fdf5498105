import * as z from 'zod'
import { mockApiOptionsSchema, wholeNumber } from '../options/mock-api-options.ts'
import { frontDoorOptionsSchema } from './front-door.ts'

/**
 * The options of `startServer` and of `serve`: the mock's, and the server's own. The CLI's flags
 * are read from it (defaults, ranges, messages), so it is the one place they are kept.
 *
 * @example
 * serverOptionsSchema.parse({ port: 0, control: false }).host // '127.0.0.1'
 */
export const serverOptionsSchema = mockApiOptionsSchema
  .extend({
    port: wholeNumber(0, 65_535)
      .default(4010)
      .describe('the port to listen on; 0 picks a free one'),
    host: z.string().min(1).default('127.0.0.1').describe('the address to bind'),
    control: z
      .boolean()
      .default(true)
      .describe(
        'the /__mock control endpoints; without them every /__mock request answers 404, as if they did not exist',
      ),
    controlToken: z
      .string()
      .optional()
      .describe(
        'requires Authorization: Bearer <token> on every /__mock request (401 otherwise); visible ASCII only',
      ),
    ...frontDoorOptionsSchema.shape,
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
    maxRequestsPerSocket: wholeNumber(0)
      .default(1_000)
      .describe('a connection is closed after this many requests (0: no limit)'),
    maxConnections: wholeNumber(1)
      .default(1_000)
      .describe(
        'connections open at once at most: one more closes the connection idle the longest; when every one has a request under way, its request answers 503 and it is closed',
      ),
    stateFile: z
      .string()
      .min(1)
      .optional()
      .describe(
        "keeps the records in this SQLite database: loaded at start (the added organisations on top), each operation's changes committed to disk before it is answered",
      ),
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

/** The names of the mock's own options: every other option of the server is the server's. */
type MockOptionName = keyof typeof mockApiOptionsSchema.shape
const mockOptionNames = new Set<string>(Object.keys(mockApiOptionsSchema.shape))

/**
 * Resolved server options split into the mock's (those {@link mockApiOptionsSchema} declares)
 * and the server's own (all the others), read from the schemas rather than listed: an option
 * added to {@link serverOptionsSchema} is the server's with no other line.
 *
 * @example
 * const { mock, server } = splitServerOptions(serverOptionsSchema.parse({ port: 0, maxUsers: 10 }))
 * server.port // 0
 * mock.maxUsers // 10
 */
export function splitServerOptions(options: ResolvedServerOptions): {
  mock: Pick<ResolvedServerOptions, MockOptionName>
  server: Omit<ResolvedServerOptions, MockOptionName>
} {
  const mock: Record<string, unknown> = {}
  const server: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(options)) {
    ;(mockOptionNames.has(name) ? mock : server)[name] = value
  }
  return {
    mock: mock as Pick<ResolvedServerOptions, MockOptionName>,
    server: server as Omit<ResolvedServerOptions, MockOptionName>,
  }
}
