import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { descriptionOf, noFlagReasonOf, optionFieldsOf } from '../../src/flags/schema-flags.ts'
import { flagOf, serveFlagDocs, serveOptions } from '../../src/server/serve-flags.ts'
import { serverOptionsSchema } from '../../src/server/server-options.ts'
import { verifyFlagDocs } from '../../src/verify/node/command.ts'
import { verifyOptionsSchema } from '../../src/verify/verify-options.ts'
import { optionsGuide, optionsGuidePath } from '../support/options-doc.ts'

/** The options guide and the help of the commands are read from the options' schemas. */
describe('the options guide', () => {
  it('says what the schemas say: run `npm run docs:options` after changing an option', () => {
    expect(readFileSync(optionsGuidePath, 'utf8')).toBe(optionsGuide())
  })

  it('gives every option of serve a flag, or says why it has none', () => {
    const flagged = new Set(serveFlagDocs().map((flag) => flag.option))
    const missing = optionFieldsOf(serverOptionsSchema).filter(
      ({ path, schema }) => !flagged.has(path) && noFlagReasonOf(schema) === undefined,
    )
    expect(missing.map(({ path }) => path)).toEqual([])
    expect(flagOf('webhookTimeoutMs')).toBe('--webhook-timeout')
    expect(flagOf('maxRequestsPerSocket')).toBe('--max-requests-per-socket')
  })

  it('gives every option of verifyDeployment a flag, or says why it has none', () => {
    const flagged = new Set(verifyFlagDocs().map((flag) => flag.option))
    const missing = optionFieldsOf(verifyOptionsSchema).filter(
      ({ path, schema }) => !flagged.has(path) && noFlagReasonOf(schema) === undefined,
    )
    expect(missing.map(({ path }) => path)).toEqual([])
    expect(verifyFlagDocs().map((flag) => flag.flag)).toContain('--timeout <ms>')
  })

  it("describes each flag of serve in its help with its option's own description", () => {
    const port = serveOptions().find((option) => option.long === '--port')
    expect(port?.description).toBe(descriptionOf(serverOptionsSchema.shape.port))
    expect(port?.description).toBe('the port to listen on; 0 picks a free one')
    const cors = serveOptions().find((option) => option.long === '--cors')
    expect(cors?.description).toBe(`${descriptionOf(serverOptionsSchema.shape.cors)} (repeatable)`)
    expect(z.globalRegistry.get(serverOptionsSchema.shape.now)?.noFlag).toMatch(/a function/)
  })
})
