import type { Database } from '../model/database.ts'
import type { Clock } from '../time.ts'

/** What every rule reads besides its arguments. */
export interface RuleContext {
  db: Database
  now: Clock
  tokenTtlSeconds: number
  strictUserGroups: boolean
  authFailureStatus: 401 | 403
  generateToken: () => string
  /** A fresh `userId` for a user that identify creates. */
  generateUserId: () => string
}
