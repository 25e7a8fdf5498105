import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import * as z from 'zod'
import { paramsOf } from '../../src/control/control-row.ts'
import { controlRows } from '../../src/control/control-surfaces.ts'

/** The server guide, whose table of control endpoints is written by {@link controlsTable}. */
export const serverGuidePath = fileURLToPath(
  new URL('../../docs/guides/server.md', import.meta.url),
)

const begin =
  '<!-- controls:begin: written by `npm run docs:controls` from src/control/control-table.ts -->'
const end = '<!-- controls:end -->'

const cell = (text: string) => text.replace(/\|/g, '\\|')

/** `{"operation","status","count"?}`: an object schema's fields, the optional ones marked. */
function fieldsOf(schema: z.ZodType | undefined, leaveOut: readonly string[] = []): string {
  if (!(schema instanceof z.ZodObject)) return '{…}'
  const shape = schema.shape as Record<string, z.ZodType>
  const names = Object.keys(shape)
    .filter((name) => !leaveOut.includes(name))
    .map((name) => `"${name}"${shape[name]?.safeParse(undefined).success ? '?' : ''}`)
  return `{${names.join(',')}}`
}

/** A body that is the value of one field of the input: its description, or its fields. */
function bodyOf(input: z.ZodType, field: string): string {
  const schema = input instanceof z.ZodObject ? (input.shape[field] as z.ZodType) : undefined
  return schema?.description ? `body: ${schema.description}` : `body \`${fieldsOf(schema)}\``
}

/** The control table as the guide shows it: a row per control, its method, path, input and answer. */
export function controlsTable(): string {
  const rows = controlRows().map(({ name, row }) => {
    const params = paramsOf(row.path)
    const path = row.path.replace(/:(\w+)/g, '{$1}')
    const { carry } = row
    const input =
      carry === 'query'
        ? `query \`${fieldsOf(row.input, params)}\``
        : carry === 'body'
          ? `body \`${fieldsOf(row.input, params)}\``
          : typeof carry === 'object'
            ? bodyOf(row.input, carry.bodyOf)
            : ''
    const tenant = row.tenant ? `, \`tenant.${row.tenant.name}\`` : ''
    return `| \`${row.method} ${path}\` | ${cell(input)} | ${row.status} | \`${name}\`${tenant} | ${cell(row.summary)} |`
  })
  return [
    begin,
    '',
    '| Endpoint | Input | Status | In-process and client method | What it does |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    end,
  ].join('\n')
}

/** The guide with its table written from the control table. */
export function serverGuide(current = readFileSync(serverGuidePath, 'utf8')): string {
  const from = current.indexOf(begin)
  const to = current.indexOf(end)
  if (from === -1 || to === -1) throw new Error(`${serverGuidePath} has no controls markers`)
  return current.slice(0, from) + controlsTable() + current.slice(to + end.length)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(serverGuidePath, serverGuide())
}
