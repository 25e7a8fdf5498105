import { parseJsonBytes, type WireRequest } from '../base/wire.ts'

/** A JSON value, as `JSON.parse` gives it. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue }

/**
 * The largest request body the journal keeps, in bytes: a larger one (the API takes up to 1 MiB)
 * is journaled with `request: null`. What all the entries hold together is the journal's budget
 * (`maxJournalBytes`, see `CallJournal`).
 *
 * @example if (body.byteLength <= maxJournaledBodyBytes) entry.request = parseJsonBytes(body)
 */
export const maxJournaledBodyBytes = 16 * 1024

/**
 * A request's body as the journal keeps it: its JSON value, `null` when it is not JSON or is
 * larger than {@link maxJournaledBodyBytes}.
 *
 * @example journaledBody(request) // { id: 'u-1', orgId: 'org-1' }
 */
export function journaledBody(request: WireRequest): JsonValue {
  const { body } = request
  if (!body || request.bodyTooLarge || body.byteLength > maxJournaledBodyBytes) return null
  return (parseJsonBytes(body) ?? null) as JsonValue
}
