import { fileURLToPath } from 'node:url'
import { coverageItems } from '../../src/core/coverage.ts'
import { generatedBlock } from './docs.ts'

const cell = (text: string) => text.replace(/\|/g, '\\|')

/** The answer space as the guide lists it: its size by group, then every item. */
export function coverageTables(): string {
  const groups = [...new Set(coverageItems.map((item) => item.group))]
  return [
    `Today's tables give **${coverageItems.length} items** in ${groups.length} groups:`,
    '',
    '| Group | Items |',
    '| --- | ---: |',
    ...groups.map(
      (group) => `| ${group} | ${coverageItems.filter((item) => item.group === group).length} |`,
    ),
    '',
    '| Item | Group | What it is |',
    '| --- | --- | --- |',
    ...coverageItems.map(
      ({ id, group, description }) => `| \`${id}\` | ${group} | ${cell(description)} |`,
    ),
  ].join('\n')
}

/** The coverage guide's list of the answer space, written from the tables it is read from. */
export const coverageDoc = generatedBlock(
  'docs/guides/coverage.md',
  'coverage',
  'src/core/coverage.ts',
  coverageTables,
)

if (process.argv[1] === fileURLToPath(import.meta.url)) coverageDoc.write()
