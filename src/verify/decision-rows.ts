import { userProfileSchema } from '../api/api-schemas.ts'
import { errorSteps, fieldsNotApplied, identifySteps } from './contract-rows.ts'
import { errorRow } from './error-row.ts'
import type { Answer } from './exchange.ts'
import { createdProfile, updatedProfile } from './plan.ts'
import {
  answeredProfile,
  describeAnswer,
  describeValues,
  type Row,
  statusesOf,
  withAnswers,
} from './row.ts'
import { differs, judge, same, skipped } from './verdict.ts'

/** A timestamp as the mock's answers where the API description is silent write them: seconds, optional fraction, offset `+00:00`. */
const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?\+00:00$/

/** An opaque, URL-safe token of at least 128 bits (32 characters as hex). */
const tokenPattern = /^[A-Za-z0-9_-]{32,}$/

/** Profile fields the run itself sets or that are always there: not "never set". */
const setByIdentify = new Set([
  'userId',
  'registrationStatus',
  'userGroups',
  'lastActive',
  'registeredAt',
])

/** The profile fields the first identify does not send, which should come back as `null`. */
const neverSetFields = Object.keys(userProfileSchema.shape).filter(
  (field) => !setByIdentify.has(field) && !(field in createdProfile),
)

const shown = (value: unknown) => JSON.stringify(value) ?? 'none'

const profileRows: Row[] = [
  {
    name: 'fields omitted on a later call are kept',
    kind: 'decision',
    expected: 'the stored value of every field not sent',
    meaning:
      'The real API clears fields your code does not send: a partial update that keeps data against the mock loses it there.',
    judge: (results) =>
      withAnswers(results, ['update'], ([updated]) => {
        const omitted = Object.fromEntries(
          Object.entries(createdProfile).filter(([field]) => !(field in updatedProfile)),
        )
        const lost = fieldsNotApplied('update', updated, omitted)
        return lost.length === 0 ? same('every omitted field kept') : differs(lost.join(', '))
      }),
  },
  {
    name: 'userGroups replaced when sent, duplicates stored once',
    kind: 'decision',
    expected: 'the list sent, each group once in first-seen order; kept when omitted',
    meaning:
      'The real API merges or keeps duplicate user groups: group assignments your tests expect are not what it stores.',
    judge: (results, ctx) => {
      if (ctx.groups.length === 0) {
        return skipped('needs --groups: without existing group ids only [] is sent')
      }
      return withAnswers(results, identifySteps, (answers) => {
        const seen = answers.map((a) => answeredProfile(a).userGroups)
        const wanted = [ctx.groups, ctx.groups, ctx.groups.slice(1, 2)]
        return judge(shown(seen) === shown(wanted), seen.map(shown).join(', '))
      })
    },
  },
  {
    name: 'userGroups naming a group the organisation does not have',
    kind: 'decision',
    expected: 'accepted, and the group created',
    meaning: '',
    judge: () => skipped('it would create a user group in the organisation'),
  },
  {
    name: 'userId stable across identify calls',
    kind: 'decision',
    expected: 'the same userId on every call for one id',
    meaning:
      'The real API gives one user several userIds: code that stores userId sees duplicates there.',
    judge: (results) =>
      withAnswers(results, identifySteps, (answers) => {
        const ids = answers.map((a) => answeredProfile(a).userId)
        return judge(typeof ids[0] === 'string' && new Set(ids).size === 1, describeValues(ids))
      }),
  },
  {
    name: 'a created user is registered, with registeredAt',
    kind: 'decision',
    expected: 'registrationStatus "registered" and registeredAt set on creation',
    meaning:
      'New users start in another state on the real API: onboarding logic tested against the mock takes another branch there.',
    judge: (results) =>
      withAnswers(results, ['create'], ([created]) => {
        const { registrationStatus, registeredAt } = answeredProfile(created)
        return judge(
          registrationStatus === 'registered' && typeof registeredAt === 'string',
          `registrationStatus ${shown(registrationStatus)}, registeredAt ${shown(registeredAt)}`,
        )
      }),
  },
  {
    name: 'timestamps with the offset +00:00',
    kind: 'decision',
    expected: 'e.g. 2025-08-14T15:12:34+00:00',
    meaning:
      'The real API writes times another way (Z, milliseconds, another offset): code that compares or parses them as strings behaves differently there.',
    judge: (results) =>
      withAnswers(results, identifySteps, (answers) => {
        const times = answers.flatMap((a) => {
          const { lastActive, registeredAt } = answeredProfile(a)
          return [lastActive, registeredAt].filter((t) => t !== null && t !== undefined)
        })
        const odd = times.filter((t) => typeof t !== 'string' || !timestampPattern.test(t))
        if (times.length === 0) return differs('no timestamp in the answers')
        return odd.length === 0 ? same(shown(times[0])) : differs(odd.map(shown).join(', '))
      }),
  },
  {
    name: 'fields never set are present as null',
    kind: 'decision',
    expected: `${neverSetFields.join(', ')}: null`,
    meaning:
      'The real API leaves out fields it has no value for: code that tells `null` from a missing field takes another branch there.',
    judge: (results) =>
      withAnswers(results, ['create'], ([created]) => {
        const profile = answeredProfile(created)
        const wrong = neverSetFields.filter((f) => profile[f] !== null)
        return wrong.length === 0
          ? same('all null')
          : differs(
              wrong.map((f) => `${f}=${f in profile ? shown(profile[f]) : 'absent'}`).join(', '),
            )
      }),
  },
  {
    name: 'token: URL-safe, at least 128 bits',
    kind: 'decision',
    expected: 'at least 32 characters of A-Z a-z 0-9 - _',
    meaning:
      'The real token has another form: code that validates or embeds it in a URL without encoding behaves differently there.',
    judge: (results) =>
      withAnswers(results, ['create'], ([created]) => {
        const token = (created.json as { token?: unknown } | undefined)?.token
        return judge(
          typeof token === 'string' && tokenPattern.test(token),
          typeof token === 'string' ? `${token.length} characters` : shown(token),
        )
      }),
  },
  {
    name: 'identify answers carry Cache-Control: no-store',
    kind: 'decision',
    expected: 'Cache-Control: no-store',
    meaning:
      'The real API lets the answer (and its token) be cached: nothing your tests see changes, but a cache in between may keep tokens.',
    judge: (results) =>
      withAnswers(results, identifySteps, (answers) => {
        const values = answers.map((a) => a.headers.get('cache-control'))
        return judge(
          values.every(
            (v) =>
              v
                ?.toLowerCase()
                .split(/\s*,\s*/)
                .includes('no-store') ?? false,
          ),
          describeValues(values.map((v) => v ?? '(none)')),
        )
      }),
  },
]

const wireRows: Row[] = [
  errorRow({
    name: 'identify without Authorization: 401',
    kind: 'decision',
    step: 'missingKey',
    error: 'unauthorized',
    header: ['WWW-Authenticate', 'Bearer'],
    meaning:
      'Tests of a missing key expect 401 where the real API answers otherwise: run the mock with authFailureStatus / --auth-failure-status to match it.',
  }),
  errorRow({
    name: 'identify with an unknown key: 401',
    kind: 'decision',
    step: 'unknownKey',
    error: 'unauthorized',
    header: ['WWW-Authenticate', 'Bearer'],
    meaning:
      'Tests of a wrong or revoked key expect 401 where the real API answers otherwise: run the mock with authFailureStatus / --auth-failure-status to match it.',
  }),
  {
    name: 'the Bearer scheme in any case',
    kind: 'decision',
    expected: '200 for "bearer <key>"',
    meaning: 'The real API refuses a lower-case scheme: send `Bearer` exactly.',
    judge: (results) =>
      withAnswers(results, ['lowercaseScheme'], ([answer]) =>
        judge(answer.status === 200, answer.status === 200 ? '200' : describeAnswer(answer)),
      ),
  },
  errorRow({
    name: 'a wrong method: 405 with Allow',
    kind: 'decision',
    step: 'wrongMethod',
    error: 'methodNotAllowed',
    header: ['Allow', 'POST'],
    meaning: 'Only code that calls the API with a wrong method notices: fix the method.',
  }),
  errorRow({
    name: 'an unknown path: 404 Not found',
    kind: 'decision',
    step: 'unknownPath',
    error: 'notFound',
    meaning: 'Only code that calls a wrong path notices: check the base URL and paths.',
  }),
  {
    name: 'delete answers 200',
    kind: 'decision',
    expected: '200',
    meaning:
      'Code that checks for exactly 200 after a delete behaves differently against the real API; response.ok still works.',
    judge: (results) =>
      withAnswers(results, ['delete'], (answers) =>
        judge(
          answers.every((a) => a.status === 200),
          statusesOf(answers),
        ),
      ),
  },
  {
    name: 'error answers carry Content-Type: application/json',
    kind: 'decision',
    expected: 'Content-Type: application/json on every error',
    meaning:
      'Code that parses error bodies only when they are declared JSON skips them on the real API.',
    judge: (results) =>
      withAnswers(results, errorSteps, (answers) => {
        const wrong = answers.flatMap((a: Answer, i) => {
          const type = a.headers.get('content-type') ?? '(none)'
          return /^application\/json\s*(;|$)/i.test(type) ? [] : [`${errorSteps[i]}: ${type}`]
        })
        return wrong.length === 0 ? same('on every error') : differs(wrong.join(', '))
      }),
  },
]

/** The rows that check what the mock chose where the API description is silent. */
export const decisionRows: readonly Row[] = [...profileRows, ...wireRows]
