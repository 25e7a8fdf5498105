/**
 * How `verify` ends: 0 agreed, 1 a row that counts differs, 2 could not run, 130 interrupted.
 *
 * @example process.exit(report.ok ? verifyExitCodes.ok : verifyExitCodes.differs)
 */
export const verifyExitCodes = { ok: 0, differs: 1, cannotRun: 2, interrupted: 130 } as const
