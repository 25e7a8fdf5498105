import { type ApiErrorCode, apiErrors } from '../base/errors.ts'
import type { StepName } from './plan.ts'
import type { CheckKind } from './report.ts'
import { describeAnswer, isErrorBody, type Row, withAnswers } from './row.ts'
import { judge } from './verdict.ts'

interface ErrorRowSpec {
  name: string
  kind: CheckKind
  step: StepName
  error: ApiErrorCode
  /** A header the answer must carry, with its value (compared without regard to case). */
  header?: readonly [name: string, value: string]
  meaning: string
}

/**
 * A row that expects `step` to answer one error of the table in `errors.ts`, exactly:
 * its status, the body `{code, message}` and, if given, a header.
 *
 * @example
 * errorRow({ name: 'delete: 404 for an id that cannot exist', kind: 'contract', step: 'absentDelete', error: 'userNotFound', meaning })
 */
export function errorRow({ name, kind, step, error, header, meaning }: ErrorRowSpec): Row {
  const { status, message } = apiErrors[error]
  const body = JSON.stringify({ code: status, message })
  const expected = header ? `${status} ${body}, ${header[0]}: ${header[1]}` : `${status} ${body}`
  return {
    name,
    kind,
    expected,
    meaning,
    judge: (results) =>
      withAnswers(results, [step], ([answer]) => {
        const headerValue = header ? answer.headers.get(header[0]) : null
        const headerOk = !header || headerValue?.toLowerCase() === header[1].toLowerCase()
        const ok =
          answer.status === status &&
          isErrorBody(answer) &&
          (answer.json as { message: unknown }).message === message &&
          headerOk
        const shownHeader = header ? `, ${header[0]}: ${headerValue ?? '(none)'}` : ''
        return judge(ok, `${describeAnswer(answer)}${shownHeader}`)
      }),
  }
}
