/**
 * The one wording of schema problems for a user: a data file at start, `createMockApi`'s options
 * (its `data` included), the control endpoints' 400 messages and the state file's refusals all
 * go through {@link issueLines}, so a path always reads `users[1].registrationStatus`.
 */

/** A schema problem: zod's issues fit it, as do the data file's own cross-record checks. */
export interface Issue {
  readonly path: readonly PropertyKey[]
  readonly message: string
  readonly code?: string
  /** The issues of each branch of a failed union. */
  readonly errors?: readonly (readonly Issue[])[]
}

/**
 * A path as a user writes it in JSON: `users[1].registrationStatus`.
 *
 * @example jsonPath(['users', 1, 'registrationStatus']) // 'users[1].registrationStatus'
 */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`))
    .join('')
}

/**
 * One `path: message` for each problem, every one of them, in order; a problem of the whole value
 * is named `whole`, or is its message alone when `whole` is empty (`Invalid options: Unrecognized
 * key: "sede"`). A failed union (`users`: a count or a list) is told by the problems of the
 * branch of the value's own type, when one branch is: what the sender meant.
 *
 * @example issueLines([{ path: ['users', 1, 'registrationStatus'], message: 'Invalid option' }]) // ['users[1].registrationStatus: Invalid option']
 */
export function issueLines(issues: readonly Issue[], whole = 'value'): string[] {
  return withBranches(issues).map(({ path, message }) => {
    const name = jsonPath(path) || whole
    return name ? `${name}: ${message}` : message
  })
}

/**
 * {@link issueLines} in one line, `; ` between them.
 *
 * @example describeIssues(parsed.error.issues) // 'status: Invalid input; count: Too small'
 */
export function describeIssues(issues: readonly Issue[], whole = 'value'): string {
  return issueLines(issues, whole).join('; ')
}

function withBranches(issues: readonly Issue[]): Issue[] {
  return issues.flatMap((issue) => {
    // Of several branches of the value's type (a choice of objects), none is what the sender meant
    // more than another: the union's own message says what is expected.
    const [branch, ...others] =
      issue.errors?.filter(
        (b) => !b.some((i) => i.code === 'invalid_type' && i.path.length === 0),
      ) ?? []
    if (issue.code !== 'invalid_union' || !branch || others.length > 0) return [issue]
    return withBranches(branch).map((i) => ({ ...i, path: [...issue.path, ...i.path] }))
  })
}
