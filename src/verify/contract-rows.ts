import type * as z from 'zod'
import { deleteUserResponseSchema, identifyUserResponseSchema } from '../api/api-schemas.ts'
import { describeIssues } from '../base/issues.ts'
import { errorRow } from './error-row.ts'
import type { Answer } from './exchange.ts'
import { createdProfile, type StepName, updatedProfile } from './plan.ts'
import {
  answeredProfile,
  describeAnswer,
  describeValues,
  isErrorBody,
  isObject,
  type Row,
  statusesOf,
  withAnswers,
} from './row.ts'
import { differs, judge, same, skipped } from './verdict.ts'

/** The steps whose identify must succeed. */
export const identifySteps = ['create', 'update', 'regroup'] as const

/** Every step that expects an error answer. */
export const errorSteps = [
  'invalidEnum',
  'unknownField',
  'otherOrgIdentify',
  'missingKey',
  'unknownKey',
  'wrongMethod',
  'unknownPath',
  'otherOrgDelete',
  'absentDelete',
  'deleteAgain',
] as const satisfies readonly StepName[]

type Issue = z.core.$ZodIssue
type IssueRow = 'closed' | 'token' | 'enum' | 'schema'

/** Which row an issue of the identify answer's schema belongs to, so that each names one row. */
function rowOfIssue(issue: Issue): IssueRow {
  if (issue.code === 'unrecognized_keys') return 'closed'
  if (issue.path[0] === 'token') return 'token'
  if (issue.path.join('.') === 'data.registrationStatus') return 'enum'
  return 'schema'
}

/** The issues of each identify answer that belong to `row`, as `step: issue; …`. */
function issuesOf(answers: readonly Answer[], row: IssueRow): string[] {
  return answers.flatMap((answer, i) => {
    const parsed = identifyUserResponseSchema.safeParse(answer.json)
    const issues = parsed.success ? [] : parsed.error.issues.filter((x) => rowOfIssue(x) === row)
    return issues.length > 0 ? [`${identifySteps[i]}: ${describeIssues(issues)}`] : []
  })
}

const unknownKeysOf = (answers: readonly Answer[]) =>
  issuesOf(answers, 'closed').join(' | ') || 'no other fields'

const identifyRows: Row[] = [
  {
    name: 'identify answers 200',
    kind: 'contract',
    expected: '200 on every successful identify',
    meaning:
      'Code that checks for exactly 200 (or response.ok) behaves differently against the real API.',
    judge: (results) =>
      withAnswers(results, identifySteps, (answers) =>
        judge(
          answers.every((a) => a.status === 200),
          statusesOf(answers),
        ),
      ),
  },
  {
    name: 'identify echoes the id sent',
    kind: 'contract',
    expected: 'response id equal to the request id',
    meaning: 'Code that matches an answer to its user by `id` breaks against the real API.',
    judge: (results, ctx) =>
      withAnswers(results, identifySteps, (answers) => {
        const ids = answers.map((a) => (isObject(a.json) ? a.json.id : undefined))
        return judge(
          ids.every((id) => id === ctx.userId),
          describeValues(ids),
        )
      }),
  },
  {
    name: 'identify answer fields in their schema',
    kind: 'contract',
    expected: 'IdentifyUserResponse: types, date-time and date formats, required fields',
    meaning:
      'A field your code reads has another type or format on the real API: parsing that passes against the mock can fail there.',
    judge: (results) =>
      withAnswers(results, identifySteps, (answers) => {
        const issues = issuesOf(answers, 'schema')
        return issues.length === 0 ? same('every field in its schema') : differs(issues.join(' | '))
      }),
  },
  {
    name: 'identify answer objects closed',
    kind: 'contract',
    expected: 'no fields beyond IdentifyUserResponse and UserProfile',
    meaning:
      'The real API sends fields the mock does not: strict parsing (zod strictObject, additionalProperties false) fails there, and the mock cannot show your code the new data.',
    judge: (results) =>
      withAnswers(results, identifySteps, (answers) =>
        judge(issuesOf(answers, 'closed').length === 0, unknownKeysOf(answers)),
      ),
  },
  {
    name: 'registrationStatus in its enumeration',
    kind: 'contract',
    expected: 'registered, unregistered or archived',
    meaning:
      'The real API sends a status the mock never does: a switch over registrationStatus meets a case your tests never ran.',
    judge: (results) =>
      withAnswers(results, identifySteps, (answers) =>
        judge(
          issuesOf(answers, 'enum').length === 0,
          describeValues(answers.map((a) => answeredProfile(a).registrationStatus)),
        ),
      ),
  },
  {
    name: 'identify token: a non-empty string, new on every call',
    kind: 'contract',
    expected: 'a non-empty string token, different on each of 3 calls',
    meaning:
      'Code that reads the sign-in token from the answer gets something else from the real API: the web-view sign-in your tests cover would fail there.',
    judge: (results) =>
      withAnswers(results, identifySteps, (answers) => {
        const tokens = answers.map((a) => (isObject(a.json) ? a.json.token : undefined))
        const missing = tokens.flatMap((t, i) =>
          typeof t === 'string' && t !== ''
            ? []
            : [`${identifySteps[i]}: ${JSON.stringify(t) ?? 'no token'}`],
        )
        if (missing.length > 0) return differs(missing.join(', '))
        const distinct = new Set(tokens).size
        return judge(
          distinct === tokens.length,
          distinct === tokens.length
            ? 'a new token on each call'
            : `${distinct} distinct of ${tokens.length}`,
        )
      }),
  },
  {
    name: 'identify applies the data sent',
    kind: 'contract',
    expected: 'the profile fields sent, in the answer to that call',
    meaning:
      'The real API stores or returns profile data differently: tests that read back what they sent pass only against the mock.',
    judge: (results) =>
      withAnswers(results, ['create', 'update'], ([created, updated]) => {
        const wrong = [
          ...fieldsNotApplied('create', created, createdProfile),
          ...fieldsNotApplied('update', updated, updatedProfile),
        ]
        return wrong.length === 0
          ? same('every field sent is in the answer')
          : differs(wrong.join(', '))
      }),
  },
]

/** The fields of `sent` whose value in the answer's profile is another, as `step: field=value`. */
export function fieldsNotApplied(
  step: StepName,
  answer: Answer,
  sent: Readonly<Record<string, unknown>>,
): string[] {
  const profile = answeredProfile(answer)
  return Object.entries(sent).flatMap(([field, value]) =>
    profile[field] === value
      ? []
      : [`${step}: ${field}=${JSON.stringify(profile[field]) ?? 'none'}`],
  )
}

const errorMeaning = (what: string) =>
  `Tests of how your code handles ${what} expect an answer the real API does not give: that error path is untested against it.`

const errorRows: Row[] = [
  errorRow({
    name: 'identify: 400 for a value outside an enumeration',
    kind: 'contract',
    step: 'invalidEnum',
    error: 'invalidRequest',
    meaning: errorMeaning('an invalid identify body'),
  }),
  errorRow({
    name: 'identify: 400 for a field the request does not have',
    kind: 'contract',
    step: 'unknownField',
    error: 'invalidRequest',
    meaning: errorMeaning('an identify body the API refuses'),
  }),
  errorRow({
    name: 'identify: 403 for another organisation',
    kind: 'contract',
    step: 'otherOrgIdentify',
    error: 'forbidden',
    meaning: errorMeaning('a refused organisation'),
  }),
  errorRow({
    name: 'delete: 403 for another organisation',
    kind: 'contract',
    step: 'otherOrgDelete',
    error: 'forbidden',
    meaning: errorMeaning('a refused delete'),
  }),
  errorRow({
    name: 'delete: 404 for an id that cannot exist',
    kind: 'contract',
    step: 'absentDelete',
    error: 'userNotFound',
    meaning: errorMeaning('deleting a user that is not there'),
  }),
  errorRow({
    name: 'delete: a second delete answers 404',
    kind: 'contract',
    step: 'deleteAgain',
    error: 'userNotFound',
    meaning: errorMeaning('deleting a user twice (a retried deletion job)'),
  }),
]

const deleteRows: Row[] = [
  {
    name: 'delete answers {id, deleted: true}',
    kind: 'contract',
    expected: '2xx {"id":"<the user\'s id>","deleted":true}',
    meaning:
      'Code that reads the delete answer gets another body from the real API: a deletion your tests see succeed may be misread there.',
    judge: (results, ctx) =>
      withAnswers(results, ['delete'], ([answer]) => {
        const parsed = deleteUserResponseSchema.safeParse(answer.json)
        const ok =
          answer.status >= 200 &&
          answer.status < 300 &&
          parsed.success &&
          parsed.data.id === ctx.userId &&
          parsed.data.deleted === true
        return judge(ok, describeAnswer(answer))
      }),
  },
  {
    name: 'error bodies exactly {code, message}, code equal to the status',
    kind: 'contract',
    expected: 'every error answer: {"code":<status>,"message":<string>}',
    meaning:
      'Code that reads `code` or `message` from an error gets another shape from the real API: its error handling is only tested against the mock.',
    judge: (results) =>
      withAnswers(results, errorSteps, (answers) => {
        const wrong = answers.flatMap((a, i) =>
          isErrorBody(a) ? [] : [`${errorSteps[i]}: ${describeAnswer(a)}`],
        )
        return wrong.length === 0 ? same('every error answer') : differs(wrong.join(' | '))
      }),
  },
  {
    name: 'identify and delete: 500 Internal server error',
    kind: 'contract',
    expected: '500 {"code":500,"message":"Internal server error"}',
    meaning: '',
    judge: () => skipped('a server failure cannot be caused from outside'),
  },
]

/** The rows that check what the API description states. */
export const contractRows: readonly Row[] = [...identifyRows, ...errorRows, ...deleteRows]
