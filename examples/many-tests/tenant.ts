/**
 * A tenant of its own for one test worker on a shared mock server: an organisation created at
 * the start, whose faults, calls and reset touch nothing of any other worker.
 */
export interface Tenant {
  orgId: string
  apiKey: string
  /** Makes the next identify (or delete) call for this tenant answer `status`. */
  failNext(operation: 'identify' | 'delete', status: number): Promise<void>
  /** This tenant's API calls, oldest first. */
  calls(): Promise<Array<{ operation: string; status: number; request: unknown }>>
  /** Back to where the tenant started; its calls and faults forgotten. */
  reset(): Promise<void>
  /** Removes the tenant and everything of it. */
  remove(): Promise<void>
}

export async function createTenant(mockUrl: string, body: object = {}): Promise<Tenant> {
  const control = async (method: string, path: string, payload?: object) => {
    const response = await fetch(`${mockUrl}/__mock${path}`, {
      method,
      headers: payload ? { 'content-type': 'application/json' } : {},
      body: payload ? JSON.stringify(payload) : undefined,
    })
    if (!response.ok) throw new Error(`${method} /__mock${path}: ${response.status}`)
    return response.status === 204 ? undefined : response.json()
  }
  const { orgId, apiKey } = await control('POST', '/organisations', body)
  return {
    orgId,
    apiKey,
    failNext: (operation, status) => control('POST', '/faults', { operation, status, orgId }),
    calls: () => control('GET', `/requests?orgId=${encodeURIComponent(orgId)}`),
    reset: () => control('POST', '/reset', { orgId }),
    remove: () => control('DELETE', `/organisations/${encodeURIComponent(orgId)}`),
  }
}
