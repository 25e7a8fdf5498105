import type { DeleteUserResponse } from '../api/api-schemas.ts'
import { ApiError } from '../base/errors.ts'
import type { RuleContext } from './context.ts'

/**
 * Delete, for a request already authenticated as `callerOrgId`: removes the user and everything
 * that refers to its `userId` (learning-path assignment and progress, certificates, sign-in
 * tokens, web-view sessions). Its user groups remain.
 *
 * @example
 * await deleteUser(ctx, 'org-1', { orgId: 'org-1', id: 'u-1' }) // { id: 'u-1', deleted: true }
 */
export function deleteUser(
  ctx: RuleContext,
  callerOrgId: string,
  target: { orgId: string; id: string },
): DeleteUserResponse {
  if (target.orgId !== callerOrgId) throw new ApiError('forbidden')
  const { db } = ctx
  const user = db.users.get(target.orgId, target.id)
  if (!user) throw new ApiError('userNotFound')

  db.removeRecordsOf(user.userId)
  db.collections.users.delete(user)
  return { id: target.id, deleted: true }
}
