import { fileURLToPath } from 'node:url'
import { shapeDimensions } from '../../src/api/answer-shapes.ts'
import { shapeCases } from '../../src/api/shape-cases.ts'
import { generatedBlock } from './docs.ts'

const cell = (text: string) => text.replace(/\|/g, '\\|')

/** The dimensions and their forms, and the covering set: what the guide shows of the table. */
export function shapesTables(): string {
  const dimensions = Object.entries(shapeDimensions).map(([name, { doc, forms }]) => {
    const listed = Object.entries(forms).map(([form, { doc: sent }]) => `\`${form}\`: ${sent}`)
    return `| \`${name}\` | ${cell(doc)} | ${cell(listed.join('; '))} |`
  })
  const cases = shapeCases.map((c) => {
    const own = Object.entries(c.forms)
      .filter(([name, form]) => Object.keys(shapeDimensions[name as 'offset'].forms)[0] !== form)
      .map(([name, form]) => `${name} \`${form}\``)
    return `| \`${c.name}\` | ${own.join(', ') || '(none: each timestamp written `+00:00`)'} |`
  })
  return [
    '| Dimension | What varies | Forms (the first is what `full` sends) |',
    '| --- | --- | --- |',
    ...dimensions,
    '',
    `The covering set has **${shapeCases.length} cases**, in this order (each names the forms it`,
    "takes other than `full`'s; every other dimension takes `full`'s form):",
    '',
    "| Case | Forms other than `full`'s |",
    '| --- | --- |',
    ...cases,
  ].join('\n')
}

/** The answer shapes guide's tables, written from the table of answer shapes and the case list. */
export const shapesDoc = generatedBlock(
  'docs/guides/answer-shapes.md',
  'shapes',
  'src/api/answer-shapes.ts and shape-cases.ts',
  shapesTables,
)

if (process.argv[1] === fileURLToPath(import.meta.url)) shapesDoc.write()
