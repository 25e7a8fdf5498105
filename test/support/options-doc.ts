import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import * as z from 'zod'
import {
  descriptionOf,
  type FlagDoc,
  noFlagReasonOf,
  type OptionField,
  optionFieldsOf,
} from '../../src/flags/schema-flags.ts'
import { mockApiOptionsSchema } from '../../src/options/mock-api-options.ts'
import { serveFlagDocs } from '../../src/server/serve-flags.ts'
import { serverOptionsSchema } from '../../src/server/server-options.ts'
import { verifyFlagDocs } from '../../src/verify/node/command.ts'
import { verifyOptionsSchema } from '../../src/verify/verify-options.ts'

/** The options guide, whose tables are written from the schemas by {@link optionsGuide}. */
export const optionsGuidePath = fileURLToPath(
  new URL('../../docs/guides/options.md', import.meta.url),
)

/** A schema's default as the table shows it; empty when it has none. */
function defaultOf(schema: z.core.$ZodType): string {
  const fallback = z.safeParse(schema, undefined)
  return fallback.success && fallback.data !== undefined ? JSON.stringify(fallback.data) : ''
}

const cell = (text: string) =>
  text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const code = (text: string) => (text === '' ? '' : `\`${text.replace(/\|/g, '\\|')}\``)

/** The table of `fields`: a row per option, each with the flags that set it. */
function table(fields: OptionField[], flags: FlagDoc[]): string {
  const rows = fields.map(({ path, schema }) => {
    const own = flags.filter((flag) => flag.option === path)
    const reason = noFlagReasonOf(schema)
    return [
      code(path),
      own.map((flag) => code(flag.flag)).join('<br>'),
      own.map((flag) => code(flag.env)).join('<br>'),
      code(defaultOf(schema)),
      cell(descriptionOf(schema) + (reason && own.length === 0 ? `. No flag: ${reason}.` : '')),
    ]
  })
  return [
    '| Option | Flag | Environment variable | Default | Description |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n')
}

/** The whole options guide, its tables written from the schemas. */
export function optionsGuide(): string {
  const mockOptions = new Set(Object.keys(mockApiOptionsSchema.shape))
  const fields = optionFieldsOf(serverOptionsSchema)
  const [mock, server] = [
    fields.filter(({ path }) => mockOptions.has(path.split('.')[0] ?? '')),
    fields.filter(({ path }) => !mockOptions.has(path.split('.')[0] ?? '')),
  ]
  return `# Options

<!-- Written by \`npm run docs:options\` from the option schemas; test/package/options-guide.test.ts fails when it disagrees with them. -->

Every option has one description, kept in its schema: \`serve --help\`, \`verify --help\` and these
tables are all read from there. A flag's environment variable is read when the flag is not given.
An option without a flag says why.

## createMockApi and startServer, and the flags of serve

\`createMockApi(options)\` and \`startServer(options)\` take these options; \`serve\` takes the flags
(and its own \`--json\`). \`organisations\` is given by \`--org\` with \`--api-key\`, \`webhooks\` by
\`--webhook-url\` with \`--webhook-secret\`.

${table(mock, serveFlagDocs())}

## startServer and serve only

${table(server, serveFlagDocs())}

## verifyDeployment, and the flags of verify

\`verifyDeployment(options)\` takes these options; \`verify\` takes the flags, and its own
\`--json\`, \`--junit <file>\` and \`--dry-run\` (see \`verify --help\`).

${table(optionFieldsOf(verifyOptionsSchema), verifyFlagDocs())}
`.replace(/\n{3,}/g, '\n\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(optionsGuidePath, optionsGuide())
}
