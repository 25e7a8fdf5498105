import { describe, expect, it } from 'vitest'
import { type FailureCase, failureCases } from '../../src/core/failure-cases.ts'
import { appliedValues, failureKindNames } from '../../src/core/failure-kinds.ts'
import { FaultQueue, kindStatuses } from '../../src/core/faults.ts'
import { apiRoutes } from '../../src/core/routes.ts'

/**
 * The failure cases as first committed, in their order: users' suites name them, so none may go,
 * move, or change its meaning (see src/core/failure-cases.ts).
 */
const committed = `
identify-status-400 identify status 400 false
identify-status-403 identify status 403 false
identify-status-500 identify status 500 false
identify-status-500-applied identify status 500 true
identify-reset identify reset - false
identify-reset-applied identify reset - true
identify-hang identify hang - false
identify-hang-applied identify hang - true
identify-truncated identify truncated - true
identify-empty identify empty - false
identify-empty-applied identify empty - true
identify-gateway-429 identify gateway 429 false
identify-gateway-429-applied identify gateway 429 true
identify-gateway-502 identify gateway 502 false
identify-gateway-502-applied identify gateway 502 true
identify-gateway-503 identify gateway 503 false
identify-gateway-503-applied identify gateway 503 true
identify-gateway-504 identify gateway 504 false
identify-gateway-504-applied identify gateway 504 true
identify-slow identify slow - true
delete-status-403 delete status 403 false
delete-status-404 delete status 404 false
delete-status-500 delete status 500 false
delete-status-500-applied delete status 500 true
delete-reset delete reset - false
delete-reset-applied delete reset - true
delete-hang delete hang - false
delete-hang-applied delete hang - true
delete-truncated delete truncated - true
delete-empty delete empty - false
delete-empty-applied delete empty - true
delete-gateway-429 delete gateway 429 false
delete-gateway-429-applied delete gateway 429 true
delete-gateway-502 delete gateway 502 false
delete-gateway-502-applied delete gateway 502 true
delete-gateway-503 delete gateway 503 false
delete-gateway-503-applied delete gateway 503 true
delete-gateway-504 delete gateway 504 false
delete-gateway-504-applied delete gateway 504 true
delete-slow delete slow - true
`
  .trim()
  .split('\n')
  .map((line) => {
    const [name, operation, kind, status, applied] = line.split(' ')
    return {
      name,
      operation,
      kind,
      applied: applied === 'true',
      ...(status !== '-' && { status: Number(status) }),
    }
  })

/** A case's meaning, without its name. */
const meaning = ({ operation, kind, status, applied }: Omit<FailureCase, 'name'>) =>
  JSON.stringify([operation, kind, status ?? null, applied])

/** Every (operation, kind, status, applied) the kinds table and the route table allow. */
function allowed(): Omit<FailureCase, 'name'>[] {
  return apiRoutes.flatMap(({ operation }) =>
    failureKindNames.flatMap((kind) => {
      const statuses = kindStatuses(kind, operation)
      return (statuses.length > 0 ? statuses : [undefined]).flatMap((status) =>
        appliedValues(kind, status).map((applied) => ({
          operation,
          kind,
          applied,
          ...(status !== undefined && { status }),
        })),
      )
    }),
  )
}

/** The name a new case is committed with (see docs/decisions/failure-cases.md). */
function proposedName({ operation, kind, status, applied }: Omit<FailureCase, 'name'>): string {
  const either = appliedValues(kind, status).length > 1
  return [operation, kind, status, either && applied ? 'applied' : undefined]
    .filter((part) => part !== undefined)
    .join('-')
}

describe('the failure cases', () => {
  it('hold every operation, kind, status and applied value the tables allow: else it names the cases to append', () => {
    const listed = new Set(failureCases.map(meaning))
    const missing = allowed().filter((c) => !listed.has(meaning(c)))
    const toAppend = missing.map((c) => JSON.stringify({ name: proposedName(c), ...c }))
    expect(toAppend, 'append these cases to src/core/failure-cases.ts').toEqual([])
  })

  it('hold nothing the tables refuse, and each meaning once', () => {
    const allowedMeanings = new Set(allowed().map(meaning))
    for (const c of failureCases) expect(allowedMeanings.has(meaning(c)), c.name).toBe(true)
    expect(new Set(failureCases.map(meaning)).size).toBe(failureCases.length)
  })

  it('are each named by lowercase words joined by -, no name twice', () => {
    const names = failureCases.map((c) => c.name)
    expect(new Set(names).size).toBe(names.length)
    for (const name of names) expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
  })

  it('keep the cases committed before, each in its place with its meaning: the list only grows', () => {
    expect(committed).toHaveLength(40)
    expect(failureCases.slice(0, committed.length)).toEqual(committed)
  })

  it('arm as the fault of their kind, with its defaults', () => {
    const queue = new FaultQueue()
    for (const c of failureCases) queue.add({ case: c.name })
    expect(queue.list()).toHaveLength(failureCases.length)
    const taken = failureCases.map((c) => queue.take(c.operation, 'org-1', 'u-1'))
    expect(taken.map((t) => t && [t.kind, t.status, t.applied])).toEqual(
      failureCases.map((c) => [c.kind, c.status, c.applied]),
    )
    const hang = taken[failureCases.findIndex((c) => c.name === 'delete-hang')]
    expect(hang?.delayMs).toBe(30_000)
    const tooMany = taken[failureCases.findIndex((c) => c.name === 'delete-gateway-429')]
    expect(tooMany?.retryAfterSeconds).toBe(1)
  })
})

describe('a fault of one kind', () => {
  const refusal = (fault: object) => {
    try {
      new FaultQueue().add(fault as never)
    } catch (error) {
      return (error as Error).message
    }
    return 'accepted'
  }

  it('is refused, saying why, where the kinds table does not allow it', () => {
    expect(refusal({ operation: 'delete', status: 404, applied: true })).toBe(
      'Invalid fault: applied: a 404 fault changes nothing: only a 500, or a failure of another kind, may be applied',
    )
    expect(refusal({ operation: 'delete', kind: 'truncated', applied: false })).toBe(
      'Invalid fault: applied: a truncated fault carries the real answer: it is always applied',
    )
    expect(refusal({ operation: 'identify', kind: 'gateway', status: 500 })).toBe(
      'Invalid fault: status: a gateway fault takes 429, 502, 503 or 504',
    )
    expect(refusal({ operation: 'identify', kind: 'reset', status: 500 })).toBe(
      'Invalid fault: status: a reset fault takes no status',
    )
    expect(
      refusal({ operation: 'identify', kind: 'gateway', status: 502, retryAfterSeconds: 5 }),
    ).toBe('Invalid fault: retryAfterSeconds: goes with a gateway fault of status 429 or 503 only')
    expect(refusal({ operation: 'delete' })).toBe(
      'Invalid fault: status: delete documents 403, 404 or 500: a fault takes one of them',
    )
    expect(refusal({ operation: 'delete', kind: 'sideways' })).toMatch(/^Invalid fault: kind: /)
    expect(refusal({ case: 'delete-reset-sideways' })).toBe(
      'Invalid fault: case: expected the name of a failure case (GET /__mock/failures lists them), not "delete-reset-sideways"',
    )
    // A case is armed by its name alone: what it is, the case says.
    expect(refusal({ case: 'delete-reset', kind: 'hang' })).toMatch(/^Invalid fault: .*kind/)
  })

  it('is accepted as today without a kind, and with each kind the table allows', () => {
    expect(refusal({ operation: 'delete', status: 500, count: 2, delayMs: 100 })).toBe('accepted')
    expect(refusal({ operation: 'delete', status: 500, applied: true })).toBe('accepted')
    expect(refusal({ operation: 'delete', kind: 'hang', applied: true, delayMs: 50 })).toBe(
      'accepted',
    )
    expect(
      refusal({ operation: 'identify', kind: 'gateway', status: 429, retryAfterSeconds: 0 }),
    ).toBe('accepted')
    expect(refusal({ operation: 'identify', kind: 'slow' })).toBe('accepted')
  })

  it('is shown queued as before when it is of kind status and not applied', () => {
    const queue = new FaultQueue()
    queue.add({ operation: 'delete', status: 500, count: 2 })
    queue.add({ operation: 'delete', kind: 'reset', applied: true })
    queue.add({ case: 'identify-gateway-429', orgId: 'org-1' })
    expect(queue.list()).toEqual([
      {
        operation: 'identify',
        kind: 'gateway',
        status: 429,
        retryAfterSeconds: 1,
        case: 'identify-gateway-429',
        remaining: 1,
        delayMs: 0,
        orgId: 'org-1',
      },
      { operation: 'delete', status: 500, remaining: 2, delayMs: 0 },
      { operation: 'delete', kind: 'reset', applied: true, remaining: 1, delayMs: 0 },
    ])
  })
})
