import { expect } from 'vitest'
import type * as z from 'zod'
import {
  deleteUserResponseSchema,
  errorResponseSchema,
  identifyUserResponseSchema,
  userProfileSchema,
} from '../../src/root/index.ts'

async function readJson<S extends z.ZodType>(response: Response, schema: S): Promise<z.output<S>> {
  expect(response.headers.get('content-type')).toBe('application/json')
  const parsed = schema.safeParse(await response.json())
  if (!parsed.success) throw new Error(`Response body does not match: ${parsed.error.message}`)
  return parsed.data
}

/** A 200 identify answer, checked against the closed response schema, every profile field sent. */
export async function expectIdentified(response: Response) {
  expect(response.status).toBe(200)
  const body = await readJson(response, identifyUserResponseSchema)
  expect(Object.keys(body.data).sort()).toEqual(Object.keys(userProfileSchema.shape).sort())
  return body
}

export async function expectDeleted(response: Response, id: string) {
  expect(response.status).toBe(200)
  expect(await readJson(response, deleteUserResponseSchema)).toEqual({ id, deleted: true })
}

/** An error answer: exactly `{code, message}`, `code` equal to the status. */
export async function expectError(response: Response, status: number, message: string) {
  expect(response.status).toBe(status)
  expect(await readJson(response, errorResponseSchema)).toEqual({ code: status, message })
}
