export interface DeleteUsersOptions {
  apiBaseUrl: string
  apiKey: string
  orgId: string
  ids: string[]
  /** Attempts per user for a 500 or a network failure. */
  attempts?: number
  /** Wait before the second attempt; doubles each time. */
  backoffMs?: number
}

export type DeleteOutcome = 'deleted' | 'already-gone' | 'failed'

/**
 * A user-deletion job, e.g. for accounts closed in the caller's own system: deletes each user,
 * retrying server failures with exponential backoff. A 404 means the user is already gone.
 */
export async function deleteUsers(
  options: DeleteUsersOptions,
): Promise<Record<string, DeleteOutcome>> {
  const { attempts = 3, backoffMs = 50 } = options
  const outcomes: Record<string, DeleteOutcome> = {}
  for (const id of options.ids) {
    outcomes[id] = 'failed'
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const status = await deleteOne(options, id).catch(() => 0)
      if (status === 200) outcomes[id] = 'deleted'
      if (status === 404) outcomes[id] = 'already-gone'
      if (status !== 500 && status !== 0) break
      await new Promise((resolve) => setTimeout(resolve, backoffMs * 2 ** (attempt - 1)))
    }
  }
  return outcomes
}

async function deleteOne(options: DeleteUsersOptions, id: string): Promise<number> {
  const url = `${options.apiBaseUrl}/api/v1/users/${encodeURIComponent(options.orgId)}/${encodeURIComponent(id)}`
  const res = await fetch(url, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${options.apiKey}` },
  })
  await res.body?.cancel()
  return res.status
}
