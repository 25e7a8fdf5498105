import { readFileSync } from 'node:fs'
import { expect } from 'vitest'

const { version } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string }

/**
 * The mock's health answer: `status`, the package's name and version (package.json's), and the id
 * of the instance (`instanceId` when the test knows it, any 16 characters of `0-9a-z` otherwise).
 *
 * @example expect(await res.json()).toEqual(mockHealth())
 */
export function mockHealth(instanceId?: string) {
  return {
    status: 'ok',
    name: 'identify-api-mock',
    version,
    instanceId: instanceId ?? expect.stringMatching(/^[0-9a-z]{16}$/),
  }
}
