import { fileURLToPath } from 'node:url'
import * as z from 'zod'
import { paramsOf } from '../../src/control/control-row.ts'
import { controlRows } from '../../src/control/control-surfaces.ts'
import { generatedBlock } from './docs.ts'

const cell = (text: string) => text.replace(/\|/g, '\\|')

/**
 * `{"operation","status","count"?}`: an object schema's fields, the optional ones marked; a choice
 * of objects, each of them.
 */
function fieldsOf(schema: z.ZodType | undefined, leaveOut: readonly string[] = []): string {
  if (schema instanceof z.ZodUnion) {
    return schema.options.map((option) => fieldsOf(option as z.ZodType, leaveOut)).join(' or ')
  }
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
    '| Endpoint | Input | Status | In-process and client method | What it does |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n')
}

/** The server guide's table of control endpoints, written from the control table. */
export const controlsDoc = generatedBlock(
  'docs/guides/server.md',
  'controls',
  'src/control/control-table.ts',
  controlsTable,
)

if (process.argv[1] === fileURLToPath(import.meta.url)) controlsDoc.write()
