import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { shapeDimensions } from '../../src/api/answer-shapes.ts'
import { shapeCases } from '../../src/api/shape-cases.ts'

/** The answer shapes guide, whose tables between the markers are written by {@link shapesTables}. */
export const shapesGuidePath = fileURLToPath(
  new URL('../../docs/guides/answer-shapes.md', import.meta.url),
)

const begin =
  '<!-- shapes:begin: written by `npm run docs:shapes` from src/api/answer-shapes.ts and shape-cases.ts -->'
const end = '<!-- shapes:end -->'

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
    begin,
    '',
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
    '',
    end,
  ].join('\n')
}

/** The guide with its tables written from the table of answer shapes. */
export function shapesGuide(current = readFileSync(shapesGuidePath, 'utf8')): string {
  const from = current.indexOf(begin)
  const to = current.indexOf(end)
  if (from === -1 || to === -1) throw new Error(`${shapesGuidePath} has no shapes markers`)
  return current.slice(0, from) + shapesTables() + current.slice(to + end.length)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(shapesGuidePath, shapesGuide())
}
