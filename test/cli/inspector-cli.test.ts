import { describe, expect, it } from 'vitest'
import { runCli, startCli, waitForOutput } from '../support/cli-process.ts'

describe('serve: the inspector in the start-up facts', () => {
  it('prints the page’s URL in the banner, and it answers the page', async () => {
    const { cli, url } = await startCli()
    try {
      expect(cli.stdout()).toMatch(new RegExp(`^Inspector: ${url}/__mock/$`, 'm'))
      const page = await fetch(`${url}/__mock/`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('<title>identify-api-mock inspector</title>')
    } finally {
      cli.child.kill('SIGKILL')
    }
  }, 20_000)

  it('gives the URL as `inspector` in the --json line, and null with --no-control', async () => {
    for (const [flags, expected] of [
      [[], (url: string) => `${url}/__mock/`],
      [['--no-control'], () => null],
    ] as const) {
      const cli = runCli(['serve', '--port', '0', '--json', ...flags])
      try {
        await waitForOutput(cli, /\n/)
        const facts = JSON.parse(cli.stdout())
        expect(facts.inspector).toBe(expected(facts.url))
        if (flags.length > 0) expect(cli.stdout()).not.toContain('/__mock/')
      } finally {
        cli.child.kill('SIGKILL')
      }
    }
  }, 20_000)

  it('prints no inspector line with --no-control', async () => {
    const { cli } = await startCli(['--no-control'])
    try {
      expect(cli.stdout()).not.toContain('Inspector:')
    } finally {
      cli.child.kill('SIGKILL')
    }
  }, 20_000)
})
