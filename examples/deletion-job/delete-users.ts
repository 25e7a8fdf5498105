export interface DeleteUsersOptions {
  apiBaseUrl: string
  apiKey: string
  orgId: string
  ids: string[]
  /** Attempts per user for a 5xx, a 429 or an answer lost on the way (a reset, a timeout). */
  attempts?: number
  /** Wait before the second attempt; doubles each time (or what a 429's `Retry-After` asks). */
  backoffMs?: number
  /** A call not answered whole within this many milliseconds is given up, and retried. */
  timeoutMs?: number
}

export type DeleteOutcome = 'deleted' | 'already-gone' | 'failed'

/**
 * A user-deletion job, e.g. for accounts closed in the caller's own system: deletes each user,
 * retrying server and gateway failures and lost answers with exponential backoff. A 404 on the
 * first attempt means the user was already gone; a 404 on a retry means an earlier attempt
 * deleted the user and its answer was lost on the way: the user is deleted.
 */
export function deleteUsers(options: DeleteUsersOptions): Promise<Record<string, DeleteOutcome>> {
  return deleteEach(options, (attempt) => (attempt === 1 ? 'already-gone' : 'deleted'))
}

/**
 * The same job with the classic bug: a 404 on a retry is counted as a failure ("the user vanished
 * while we were deleting it"). Every test with faults that change nothing passes; in production,
 * the first lost answer of a delete that did happen makes the job report a failure.
 */
export function deleteUsersWithTheBug(
  options: DeleteUsersOptions,
): Promise<Record<string, DeleteOutcome>> {
  return deleteEach(options, (attempt) => (attempt === 1 ? 'already-gone' : 'failed'))
}

/** Whether an attempt answered so may succeed if tried again. */
const worthRetrying = (status: number) => status === 0 || status === 429 || status >= 500

async function deleteEach(
  options: DeleteUsersOptions,
  onNotFound: (attempt: number) => DeleteOutcome,
): Promise<Record<string, DeleteOutcome>> {
  const { attempts = 3, backoffMs = 50 } = options
  const outcomes: Record<string, DeleteOutcome> = {}
  for (const id of options.ids) {
    outcomes[id] = 'failed'
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const { status, retryAfterMs = 0 } = await deleteOne(options, id)
      if (status === 200) outcomes[id] = 'deleted'
      if (status === 404) outcomes[id] = onNotFound(attempt)
      if (!worthRetrying(status)) break
      const backoff = Math.max(backoffMs * 2 ** (attempt - 1), retryAfterMs)
      if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, backoff))
    }
  }
  return outcomes
}

/**
 * One delete: its status once its answer is read whole (200 only with the API's body), or 0 when
 * the answer was lost (a reset, an empty answer, a timeout, a body cut short). A gateway's page is
 * not the API's JSON: only a 200's body is read.
 */
async function deleteOne(
  options: DeleteUsersOptions,
  id: string,
): Promise<{ status: number; retryAfterMs?: number }> {
  const url = `${options.apiBaseUrl}/api/v1/users/${encodeURIComponent(options.orgId)}/${encodeURIComponent(id)}`
  try {
    const res = await fetch(url, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${options.apiKey}` },
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    })
    if (res.status === 200) {
      const body = (await res.json()) as { deleted?: unknown }
      return { status: body.deleted === true ? 200 : 0 }
    }
    await res.body?.cancel()
    const retryAfter = Number(res.headers.get('retry-after') ?? Number.NaN)
    return Number.isFinite(retryAfter)
      ? { status: res.status, retryAfterMs: retryAfter * 1000 }
      : { status: res.status }
  } catch {
    return { status: 0 }
  }
}
