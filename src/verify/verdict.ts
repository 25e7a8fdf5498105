import type { Verdict } from './report.ts'

/** A row's verdict on a run, with what the run actually gave. */
export interface Judgement {
  verdict: Verdict
  actual: string
}

/**
 * The verdicts a row gives.
 *
 * @example judge(answer.status === 204, `status ${answer.status}`)
 */
export const same = (actual: string): Judgement => ({ verdict: 'same', actual })
export const differs = (actual: string): Judgement => ({ verdict: 'differs', actual })
export const skipped = (reason: string): Judgement => ({ verdict: 'skipped', actual: reason })

/** A judgement of whether `actual` is what was expected. */
export const judge = (ok: boolean, actual: string): Judgement =>
  ok ? same(actual) : differs(actual)
