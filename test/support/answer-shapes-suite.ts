import { readFileSync } from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  formsOf,
  optionalProfileFields,
  type ShapeForms,
  shapeDimensionNames,
  timestampFields,
} from '../../src/api/answer-shapes.ts'
import {
  identifyUserResponseSchema,
  type OrganisationInput,
  type ShapeCase,
} from '../../src/root/index.ts'
import { controlOver, type StartWayIn, type WayIn } from './way-in.ts'

const openApi = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'))
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats.default(ajv)
ajv.addSchema(openApi, 'openapi.json')
const openApiValidate = ajv.getSchema('openapi.json#/components/schemas/IdentifyUserResponse')

/** Checks an identify answer against the exported schema and, independently, `openapi.json`. */
export function expectValidAnswer(body: unknown): void {
  const parsed = identifyUserResponseSchema.safeParse(body)
  if (!parsed.success) throw new Error(`not an IdentifyUserResponse: ${parsed.error.message}`)
  if (!openApiValidate?.(body)) {
    throw new Error(`openapi.json refuses it: ${JSON.stringify(openApiValidate?.errors)}`)
  }
}

/** The controls the answer shapes need, as a user of this way in reaches them. */
export interface ShapeControls {
  createOrganisation(input: OrganisationInput): Promise<{ orgId: string; apiKey: string }>
  setShapes(orgId: string, shapes: string): Promise<void>
  cases(): Promise<ShapeCase[]>
}

/** The controls in-process (`api.organisations`, `api.shapes`). */
export function inProcessControls(way: WayIn): ShapeControls {
  return {
    createOrganisation: (input) => way.core.organisations.create(input),
    setShapes: (orgId, shapes) => way.core.organisations.setShapes(orgId, shapes),
    cases: async () => way.core.shapes.cases(),
  }
}

/** The controls over HTTP, under `/__mock`. */
export function httpControls(way: WayIn): ShapeControls {
  const control = controlOver(way.url)
  return {
    createOrganisation: (input) => control('POST', '/__mock/organisations', input),
    setShapes: async (orgId, shapes) => {
      await control('PUT', `/__mock/organisations/${encodeURIComponent(orgId)}/shapes`, { shapes })
    },
    cases: async () => (await control('GET', '/__mock/shapes')).cases,
  }
}

/** A user the record holds every value of, and the values it holds. */
const keeper = {
  id: 'keeper' as const,
  registrationStatus: 'registered',
  registeredAt: '2025-03-01T10:20:30+00:00',
  lastActive: '2025-03-02T23:59:59.250+00:00',
  firstName: 'Ada',
  lastName: 'Lovelace',
  country: 'UK',
  region: 'London',
  sex: 'female',
  ageBracket: '35-44',
  userGroups: ['g-first', 'g-second', 'g-third'],
  learningPath: {
    learningPathId: 'path-1',
    startDate: '2025-01-31',
    dueDate: '2025-06-30',
    completedAt: '2025-05-01T00:00:00+00:00',
  },
} satisfies NonNullable<Exclude<OrganisationInput['users'], number>>[number]

/** A user the record holds no value of but its status (and, once identified, `lastActive`). */
const bare = { id: 'bare', registrationStatus: 'unregistered' as const }

const organisation = (orgId: string): OrganisationInput => ({
  orgId,
  userGroups: keeper.userGroups.map((groupId) => ({ groupId })),
  learningPaths: [{ learningPathId: 'path-1', name: 'Basics' }],
  users: [keeper, bare],
})

/**
 * The answer shapes through one way in: every form of every dimension in an answer that asks for
 * it, every answer valid against the exported schema and `openapi.json`, `varied` holding each
 * user in one case, no stored value dropped or changed, and one organisation's mode never
 * reaching another's answers.
 */
export function describeAnswerShapes(
  name: string,
  start: StartWayIn,
  controlsOf: (way: WayIn) => ShapeControls,
) {
  describe(`${name}: answer shapes`, () => {
    let way: WayIn
    let controls: ShapeControls
    let orgs = 0
    beforeAll(async () => {
      way = await start()
      controls = controlsOf(way)
    })
    afterAll(() => way.close())

    const newOrganisation = async () => {
      const orgId = `shapes-${++orgs}`
      const { apiKey } = await controls.createOrganisation(organisation(orgId))
      return { orgId, apiKey }
    }
    const identify = async (org: { orgId: string; apiKey: string }, id: string, data = {}) => {
      const response = await way.fetch(way.url('/api/v1/users/identify'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${org.apiKey}` },
        body: JSON.stringify({ id, orgId: org.orgId, data }),
      })
      expect(response.status).toBe(200)
      const text = await response.text()
      const body = JSON.parse(text)
      expectValidAnswer(body)
      return { text, body, data: body.data as Record<string, unknown> }
    }

    it('lists the covering set: every form of every dimension in some case', async () => {
      const cases = await controls.cases()
      for (const dimension of shapeDimensionNames) {
        expect(new Set(cases.map((c) => c.forms[dimension]))).toEqual(new Set(formsOf(dimension)))
      }
    })

    it("answers in each case's forms, every value the record holds sent with its meaning", async () => {
      const org = await newOrganisation()
      const seen = new Map<string, Set<string>>()
      const see = (dimension: string, form: string) =>
        seen.set(dimension, (seen.get(dimension) ?? new Set()).add(form))
      for (const shape of await controls.cases()) {
        await controls.setShapes(org.orgId, shape.name)
        const forms: ShapeForms = shape.forms

        const full = await identify(org, keeper.id)
        const stored: Record<string, unknown> = {
          ...keeper,
          learningPathId: 'path-1',
          learningPathName: 'Basics',
          learningPathStartDate: keeper.learningPath.startDate,
          learningPathDueDate: keeper.learningPath.dueDate,
          learningPathCompletedAt: keeper.learningPath.completedAt,
        }
        for (const field of optionalProfileFields) {
          expect(full.data[field], field).not.toBeUndefined()
          if ((timestampFields as string[]).includes(field) || field === 'lastActive') continue
          expect(full.data[field], field).toBe(stored[field])
        }
        // The same instants: registeredAt and the completion as stored, lastActive just now.
        expect(Date.parse(full.data.registeredAt as string)).toBe(Date.parse(keeper.registeredAt))
        expect(Date.parse(full.data.learningPathCompletedAt as string)).toBe(
          Date.parse(keeper.learningPath.completedAt),
        )
        expect(Math.abs(Date.parse(full.data.lastActive as string) - Date.now())).toBeLessThan(
          600_000,
        )
        const suffix = { utc: '+00:00', z: 'Z', east: '+05:30', west: '-08:00' }[forms.offset]
        for (const field of timestampFields) {
          const stamp = full.data[field] as string
          expect(stamp.endsWith(suffix), `${field} ${stamp}`).toBe(true)
          expect(/:\d{2}\.\d{3}/.test(stamp), `${field} ${stamp}`).toBe(
            forms.fraction === 'fraction',
          )
        }
        see('offset', forms.offset)
        see('fraction', forms.fraction)
        const groups = full.data.userGroups as string[]
        expect([...groups].sort()).toEqual([...keeper.userGroups].sort())
        expect(groups).toEqual(
          forms.groupOrder === 'reversed' ? [...keeper.userGroups].reverse() : keeper.userGroups,
        )
        see('groupOrder', forms.groupOrder)

        const empty = await identify(org, bare.id)
        expect(empty.data.registrationStatus).toBe('unregistered')
        // Every field of bare is null but lastActive, which each identify sets.
        for (const field of optionalProfileFields) {
          if (field === 'lastActive') continue
          const form = field in empty.data ? 'null' : 'absent'
          expect(form, field).toBe(forms[field])
          if (form === 'null') expect(empty.data[field], field).toBeNull()
          see(field, form)
        }

        const created = await identify(org, `new-${shape.name}`, { firstName: 'Grace' })
        expect(created.data.firstName).toBe('Grace')
        expect(created.data.registrationStatus).toBe(forms.newUser)
        if (forms.newUser === 'registered') {
          expect(typeof created.data.registeredAt).toBe('string')
        } else {
          expect(created.data.registeredAt ?? null).toBeNull()
        }
        see('newUser', forms.newUser)
        // Fixed when it was created: the next answer keeps the status.
        expect((await identify(org, `new-${shape.name}`)).data.registrationStatus).toBe(
          forms.newUser,
        )
      }
      for (const dimension of shapeDimensionNames) {
        // lastActive is set by every identify: its null forms show in GET /__mock/user only.
        if (dimension === 'lastActive') continue
        expect(seen.get(dimension), dimension).toEqual(new Set(formsOf(dimension)))
      }
    })

    it('holds each user of a varied organisation in one form, on every answer (20 calls)', async () => {
      const org = await newOrganisation()
      await controls.setShapes(org.orgId, 'varied')
      const cases = await controls.cases()
      const signatures = new Set<string>()
      for (let i = 0; i < cases.length; i++) {
        const first = await identify(org, `varied-${i}`)
        signatures.add(signatureOf(first.data))
      }
      // The first N users created take the N cases: N different forms.
      expect(signatures.size).toBe(cases.length)
      for (const id of ['varied-0', keeper.id, bare.id]) {
        const forms = new Set<string>()
        for (let call = 0; call < 20; call++) forms.add(signatureOf((await identify(org, id)).data))
        expect(forms.size, id).toBe(1)
      }
    })

    it("never changes another organisation's answers", async () => {
      const [a, b] = [await newOrganisation(), await newOrganisation()]
      const before = await identify(b, keeper.id)
      const beforeBare = await identify(b, bare.id)
      const odd = (await controls.cases()).find((c) => c.forms.newUser === 'unregistered')
      await controls.setShapes(a.orgId, odd?.name ?? 'varied')
      const after = await identify(b, keeper.id)
      const afterBare = await identify(b, bare.id)
      expect(stable(after.text)).toBe(stable(before.text))
      expect(stable(afterBare.text)).toBe(stable(beforeBare.text))
      expect((await identify(b, 'fresh')).data.registrationStatus).toBe('registered')
      expect(Object.keys(afterBare.data)).toHaveLength(16)
    })
  })
}

/** An answer's text without what every call changes: its token and the time of `lastActive`. */
function stable(text: string): string {
  return text
    .replace(/"token":"[^"]*"/, '"token":""')
    .replace(/"lastActive":"[^"]*"/, '"lastActive":""')
}

/** What an answer's form is: which fields it sends, its timestamps' suffix and fraction, its groups. */
function signatureOf(data: Record<string, unknown>): string {
  const stamps = timestampFields.map((field) => {
    const value = data[field]
    return typeof value === 'string' ? value.replace(/^.{19}/, '') : String(value)
  })
  return JSON.stringify([Object.keys(data), stamps, data.registrationStatus])
}
