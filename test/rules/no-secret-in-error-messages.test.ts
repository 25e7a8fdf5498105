import { describe, expect, it } from 'vitest'
import { createMockApi } from '../../src/root/index.ts'
import { runCli } from '../support/cli-process.ts'

describe('api.fetch outside its baseUrl', () => {
  it('rejects with a TypeError naming the origin only, never the path or query', async () => {
    const api = createMockApi({ baseUrl: 'https://api.example.test' })
    const error = await api
      .fetch('https://other.example/webview/secret-path?token=t0ken-in-the-query')
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as TypeError).message).toBe(
      "fetch failed: a request to https://other.example is not under this mock's baseUrl https://api.example.test",
    )
  })
})

describe('verify --base-url with a user name and password', () => {
  it('exits 2 with one line that does not echo the password, even with --dry-run', async () => {
    const cli = runCli([
      'verify',
      '--base-url',
      'http://someone:pa55word-XYZ@127.0.0.1:9',
      '--api-key',
      'k',
      '--org',
      'o',
      '--dry-run',
    ])
    const { code } = await cli.exit
    expect(code).toBe(2)
    expect(cli.stdout()).toBe('')
    expect(cli.stderr()).toBe(
      'identify-api-mock: invalid options: baseUrl: expected a URL without a user name or password (errors and --dry-run would print them)\n',
    )
  }, 30_000)
})
