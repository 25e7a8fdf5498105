import { fileURLToPath } from 'node:url'
import * as z from 'zod'
import { webhookEventInputSchema, webhookEventTypes } from '../../src/webhooks/events.ts'
import { generatedBlock } from './docs.ts'

const cell = (text: string) => text.replace(/\|/g, '\\|')
const code = (text: string) => `\`${text}\``

/** A delivered `data`'s fields, nested ones shown: `{"notifications":[{"title",…}]}`. */
function shapeOf(schema: z.ZodType): string {
  if (schema instanceof z.ZodArray) return `[${shapeOf(schema.element as z.ZodType)}]`
  if (!(schema instanceof z.ZodObject)) return ''
  const fields = Object.entries(schema.shape as Record<string, z.ZodType>).map(
    ([name, field]) => `"${name}"${shapeOf(field) && `:${shapeOf(field)}`}`,
  )
  return `{${fields.join(',')}}`
}

/** An input's fields, the optional ones marked and a literal type given: `{"type":"x","orgId","id"?}`. */
function inputOf(schema: z.ZodObject): string {
  const fields = Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => {
    if (field instanceof z.ZodLiteral) return `"${name}":${JSON.stringify(field.value)}`
    if (field instanceof z.ZodRecord) return `"${name}":{…}`
    return `"${name}"${field.safeParse(undefined).success ? '?' : ''}`
  })
  return `{${fields.join(',')}}`
}

/** What each omitted field of an input becomes: its default, or what its description says. */
function omittedOf(schema: z.ZodObject): string {
  const omitted = Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(
    ([name, field]) => {
      const fallback = field.safeParse(undefined)
      if (!fallback.success) return []
      const becomes = fallback.data === undefined ? field.description : code(String(fallback.data))
      return becomes ? [`${code(name)} is ${becomes}`] : []
    },
  )
  return omitted.length > 0 ? `when omitted, ${omitted.join(', ')}` : ''
}

/** The event types the mock knows by name, each with what it is and the fields of its `data`. */
export function eventTypesList(): string {
  return Object.entries(webhookEventTypes)
    .map(
      ([type, row]) =>
        `- ${code(type)}: ${row.description} \`data\`: \`${shapeOf(row.data as z.ZodType)}\`.`,
    )
    .join('\n')
}

/** How a test raises each event type: a row per named type, then any other. */
export function raiseTable(): string {
  const named = Object.entries(webhookEventTypes).map(
    ([type, row]) =>
      `| ${code(type)} | \`${inputOf(row.inputSchema)}\`: ${cell(omittedOf(row.inputSchema))}. |`,
  )
  const other = webhookEventInputSchema.options.at(-1)
  if (!(other instanceof z.ZodObject) || other.shape.type instanceof z.ZodLiteral) {
    throw new Error('the last choice of webhookEventInputSchema is not the one of any other type')
  }
  return [
    '| Event | Body |',
    '| --- | --- |',
    ...named,
    `| any other type | \`${inputOf(other)}\`: \`data\` is delivered as given (the platform's catalogue is not public); ${cell(omittedOf(other))}. |`,
  ].join('\n')
}

const guide = 'docs/guides/webhooks.md'
const from = 'src/webhooks/events.ts'

/** The webhooks guide's blocks, written from the event table: `npm run docs:webhooks`. */
export const webhooksDocs = [
  generatedBlock(guide, 'webhooks:types', from, eventTypesList),
  generatedBlock(guide, 'webhooks:raise', from, raiseTable),
]

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const block of webhooksDocs) block.write()
}
