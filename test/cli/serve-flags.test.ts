import { describe, expect, it } from 'vitest'
import { flagOf, optionsOf, serveOptions } from '../../src/server/serve-flags.ts'
import { serverOptionsSchema } from '../../src/server/server-options.ts'

describe("serve's flags, read from the server options schema", () => {
  const defaults = serverOptionsSchema.parse({})
  const options = serveOptions()

  it("gives each flag the schema's default, so that --help shows it", () => {
    const given = Object.fromEntries(
      options
        .filter((option) => option.defaultValue !== undefined)
        .map((option) => [option.attributeName(), option.defaultValue]),
    )
    expect(serverOptionsSchema.parse(optionsOf(given))).toEqual(defaults)
    expect(given).toMatchObject({ port: 4010, maxUsers: 200_000, closeMessage: 'webview:close' })
  })

  it("checks a flag's value with the schema's rule and message", () => {
    const maxUsers = options.find((option) => option.long === '--max-users')
    expect(maxUsers?.parseArg?.('12', undefined)).toBe(12)
    expect(() => maxUsers?.parseArg?.('0', undefined)).toThrow(
      'expected a whole number of 1 or more',
    )
  })

  it('reads an object option, the latency, from its JSON, and refuses what is not one, saying what is', () => {
    const latency = options.find((option) => option.long === '--latency')
    expect(latency?.flags).toBe('--latency <json>')
    expect(latency?.parseArg?.('{"medianMs":80,"p99Ms":900}', undefined)).toEqual({
      medianMs: 80,
      p99Ms: 900,
    })
    const expected = 'expected {"fixedMs":n}, {"uniformMs":[a,b]} or {"medianMs":m,"p99Ms":p}.'
    expect(() => latency?.parseArg?.('{"fixed":5}', undefined)).toThrow(expected)
    expect(() => latency?.parseArg?.('fast', undefined)).toThrow(expected)
    expect(() => latency?.parseArg?.('{"uniformMs":[9,3]}', undefined)).toThrow(
      'the lower bound first.',
    )
  })

  it('maps nested options and names the flag of an option', () => {
    expect(optionsOf({ closeMessage: 'bye', org: 'acme', apiKey: ['k'] })).toEqual({
      organisations: [{ orgId: 'acme', apiKeys: ['k'] }],
      webhooks: [],
      webViewMessages: { close: 'bye' },
    })
    expect(flagOf('controlToken')).toBe('--control-token')
    expect(flagOf('webViewMessages.sessionRefresh')).toBe('--refresh-message')
  })
})
