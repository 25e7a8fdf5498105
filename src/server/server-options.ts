import { z } from 'zod'
import { mockApiOptionsSchema, wholeNumber } from '../options.ts'
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
    /** 0 picks a free port. */
    port: wholeNumber(0, 65_535).default(4010),
    /** The address to bind. */
    host: z.string().min(1).default('127.0.0.1'),
    /** `false` answers every `/__mock` request 404, as if the control endpoints did not exist. */
    control: z.boolean().default(true),
    /**
     * Requires `Authorization: Bearer <controlToken>` on every `/__mock` request (401 otherwise).
     * Visible ASCII only, which the control endpoints check where they keep its hash.
     */
    controlToken: z.string().optional(),
    ...frontDoorOptionsSchema.shape,
    /** A client must have sent its request headers within this time (408 and closed otherwise). */
    headersTimeoutMs: wholeNumber(1).default(10_000),
    /** A client must have sent its whole request within this time (408 and closed otherwise). */
    requestTimeoutMs: wholeNumber(1).default(30_000),
    /** An idle keep-alive connection is closed after this time. */
    keepAliveTimeoutMs: wholeNumber(1).default(5_000),
    /** A connection is closed after this many requests (0: no limit). */
    maxRequestsPerSocket: wholeNumber(0).default(1_000),
    /** Connections open at once at most: a request on one more answers 503 and is closed. */
    maxConnections: wholeNumber(1).default(1_000),
    /**
     * Keeps the records in this SQLite database: loaded at start (with `organisations` applied on
     * top), and each operation's changes committed to disk before it is answered.
     */
    stateFile: z.string().min(1).optional(),
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
