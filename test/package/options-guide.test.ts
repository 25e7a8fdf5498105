import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { descriptionOf } from '../../src/flags/schema-flags.ts'
import { flagOf, serveOptions } from '../../src/server/serve-flags.ts'
import { serverOptionsSchema } from '../../src/server/server-options.ts'
import { verifyFlagDocs } from '../../src/server/verify/command.ts'
import { verifyOptionsSchema } from '../../src/verify/options.ts'
import { noFlagReasonOf, optionsGuide, optionsGuidePath } from '../support/options-doc.ts'

/** The options guide and the help of the commands are read from the options' schemas. */
describe('the options guide', () => {
  it('says what the schemas say: run `npm run docs:options` after changing an option', () => {
    expect(readFileSync(optionsGuidePath, 'utf8')).toBe(optionsGuide())
  })

  it('gives every option of serve a flag, or says why it has none', () => {
    const combined = new Set(['organisations', 'webhooks', 'webViewMessages'])
    const missing = Object.entries(serverOptionsSchema.shape)
      .filter(([key]) => !combined.has(key) && flagOf(key) === undefined)
      .filter(([, schema]) => noFlagReasonOf(schema) === undefined)
    expect(missing.map(([key]) => key)).toEqual([])
  })

  it('gives every option of verifyDeployment a flag, or says why it has none', () => {
    const flagged = new Set(verifyFlagDocs().map((flag) => flag.option))
    const missing = Object.entries(verifyOptionsSchema.shape).filter(
      ([key, schema]) => !flagged.has(key) && noFlagReasonOf(schema) === undefined,
    )
    expect(missing.map(([key]) => key)).toEqual([])
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
