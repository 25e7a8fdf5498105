import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { DataFile } from '../../src/api/data-file.ts'
import { createMockApi } from '../../src/root/index.ts'

/** docs/guides/snapshots.md: its data file is one the mock takes, its calls are the handle's methods. */
const guide = readFileSync(new URL('../../docs/guides/snapshots.md', import.meta.url), 'utf8')
const blocks = (lang: string) =>
  [...guide.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] ?? '')

describe('docs/guides/snapshots.md', () => {
  it('declares a data file whose snapshot a restore puts in place', async () => {
    const [json = ''] = blocks('json')
    const api = createMockApi({ seededOrganisations: 0, data: JSON.parse(json) as DataFile })
    await api.organisations.restoreSnapshot('acme', 'two-leavers')
    const { users } = await api.organisations.listUsers('acme')
    expect(users.map((user) => user.id).sort()).toEqual(['ada', 'grace'])
    expect(await api.organisations.clock('acme')).toMatchObject({ mode: 'frozen' })
  })

  it('calls only methods a tenant handle has', async () => {
    const tenant = await createMockApi().organisations.create()
    const called = blocks('ts')
      .join('\n')
      .matchAll(/\b(?:tenant|base|mine)\.(\w+)\(/g)
    const names = new Set([...called].map((m) => m[1] ?? ''))
    expect([...names].sort()).toEqual(
      expect.arrayContaining(['fork', 'restoreSnapshot', 'saveSnapshot']),
    )
    for (const name of names) expect(tenant, name).toHaveProperty(name, expect.any(Function))
  })
})
