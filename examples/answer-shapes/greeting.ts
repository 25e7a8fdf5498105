import { identifyUserResponseSchema } from 'identify-api-mock'

/** Where the Identify and Delete User API lives; the tests' mock answers every origin. */
const apiBaseUrl = 'https://learning-api.example'

/** Who is greeted: the caller's organisation, its API key, and the user's own id. */
export interface Caller {
  apiKey: string
  orgId: string
  id: string
}

async function identify({ apiKey, orgId, id }: Caller): Promise<unknown> {
  const response = await fetch(`${apiBaseUrl}/api/v1/users/identify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, orgId }),
  })
  if (!response.ok) throw new Error(`identify answered ${response.status}`)
  return response.json()
}

/** The profile as a team types it by hand from the answers it has seen: every field present. */
interface ProfileAsSeen {
  firstName: string | null
}

/**
 * The classic bug: every answer the team saw had `firstName`, `null` when unset, so it checks for
 * `null` only. An answer that leaves the field out (the API allows it) throws a `TypeError`.
 */
export async function greetingWithTheBug(caller: Caller): Promise<string> {
  const { data } = (await identify(caller)) as { data: ProfileAsSeen }
  return data.firstName === null ? 'Welcome!' : `Welcome, ${data.firstName.toUpperCase()}!`
}

/**
 * Fixed: the answer read with the package's schema, whose optional fields may be `null` or absent,
 * so the compiler asks for both.
 */
export async function greeting(caller: Caller): Promise<string> {
  const { data } = identifyUserResponseSchema.parse(await identify(caller))
  return data.firstName ? `Welcome, ${data.firstName.toUpperCase()}!` : 'Welcome!'
}
