/**
 * Imported first by the CLI, so that it runs before any other module does: on a Node too old for
 * the mock, the CLI exits 1 with one line naming the Node it needs.
 */
import { unsupportedNode } from '../base/node-support.ts'

const refusal = unsupportedNode()
if (refusal) {
  process.stderr.write(`identify-api-mock: ${refusal}\n`)
  process.exit(1)
}
