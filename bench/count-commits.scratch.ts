// Scratch (not committed): instructions a call of several commits, two at a time.
import { checkoutOf } from './lib/checkout.ts'
import { sizedOptions } from './lib/in-process.ts'
import { instructionsPerCall } from './lib/instructions.ts'

const commits = process.argv.slice(2)
const results: Record<string, unknown> = {}
for (let i = 0; i < commits.length; i += 2) {
  await Promise.all(
    commits.slice(i, i + 2).map(async (commit) => {
      const c = checkoutOf(commit)
      if (!('folder' in c)) throw new Error(c.unavailable)
      try {
        results[commit] = await instructionsPerCall(sizedOptions(1000), c.folder)
      } finally {
        c.remove()
      }
      console.log(commit, Math.round(results[commit] as number))
    }),
  )
}
