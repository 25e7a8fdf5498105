import { defaultSourceShare, Shares, shareOf } from '../base/shares.ts'

/** The request bodies being read at once, across every connection, at most (64 MiB). */
export const maxBodiesBytes = 64 * 1024 * 1024

/** The most of {@link maxBodiesBytes} one source holds at once by default (a quarter). */
export const maxSourceBytes = shareOf(maxBodiesBytes, defaultSourceShare)

/**
 * The bytes of request bodies being read, in all and per source (the organisation whose key let
 * the request in, the control token, or none), each body counted from its announced length: no
 * source holds more than its `share` of the budget, so a client flooding the server with slow
 * bodies leaves room for every other tenant's calls.
 *
 * @example
 * const bodies = bodyBudget(0.25)
 * if (bodies.take(source, announced)) { …read…; bodies.give(source, announced) }
 */
export function bodyBudget(share: number): Shares {
  return new Shares(maxBodiesBytes, share)
}
