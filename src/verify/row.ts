import type { Answer, Exchange } from './exchange.ts'
import type { RunContext, StepName } from './plan.ts'
import type { CheckKind } from './report.ts'
import { differs, type Judgement } from './verdict.ts'

/** What each step of a run gave; a step missing here was not sent (the run stopped). */
export type Results = Partial<Record<StepName, Exchange>>

/** One row of the contract suite: what it expects, and how it judges a run's results. */
export interface Row {
  name: string
  kind: CheckKind
  expected: string
  /** What a difference means for tests that run against the mock. */
  meaning: string
  judge(results: Results, ctx: RunContext): Judgement
}

/**
 * Calls `judgeAnswers` with the answers of `steps`, in that order; a step without an answer
 * (a timeout, a network error, not sent) makes the row differ, saying which and why.
 */
export function withAnswers<const S extends readonly StepName[]>(
  results: Results,
  steps: S,
  judgeAnswers: (answers: { [K in keyof S]: Answer }) => Judgement,
): Judgement {
  const answers: Answer[] = []
  for (const step of steps) {
    const exchange = results[step]
    if (!exchange) return differs(`${step}: not sent (the run stopped)`)
    if (!exchange.answered) return differs(`${step}: ${exchange.message}`)
    answers.push(exchange.answer)
  }
  return judgeAnswers(answers as { [K in keyof S]: Answer })
}

const maxShown = 160

/** An answer in one line: status and body, cut to a readable length. */
export function describeAnswer(answer: Answer): string {
  const body = answer.text.replace(/\s+/g, ' ').trim()
  const shown = body.length > maxShown ? `${body.slice(0, maxShown)}…` : body
  return shown ? `${answer.status} ${shown}` : `${answer.status} (no body)`
}

/** Values in one line, as JSON: `"a" (×3)` when they are all the same, else `"a", "b", "a"`. */
export function describeValues(values: readonly unknown[]): string {
  const shown = values.map((value) => JSON.stringify(value) ?? 'none')
  const [first] = shown
  return new Set(shown).size === 1 && shown.length > 1
    ? `${first} (×${shown.length})`
    : shown.join(', ')
}

/** The answers' statuses in one line, e.g. `200 (×3)` or `200, 200, 201`. */
export const statusesOf = (answers: readonly Answer[]) =>
  describeValues(answers.map((a) => a.status))

/** Whether `value` is a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The `data` object of an identify answer, or an empty object. */
export function answeredProfile(answer: Answer): Record<string, unknown> {
  const data = isObject(answer.json) ? answer.json.data : undefined
  return isObject(data) ? data : {}
}

/** Whether an answer's body is exactly `{code, message}` with `code` equal to the status. */
export function isErrorBody(answer: Answer): boolean {
  const body = answer.json
  return (
    isObject(body) &&
    Object.keys(body).sort().join() === 'code,message' &&
    body.code === answer.status &&
    typeof body.message === 'string'
  )
}
