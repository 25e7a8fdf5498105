import type { UserProfile } from '../api/api-schemas.ts'
import {
  type ShapeCase,
  type Shapes,
  shapeCaseNamed,
  shapeCases,
  shapesSchema,
} from '../api/shape-cases.ts'
import { ApiError } from '../base/errors.ts'
import { hashOf, seededRandom } from '../base/seeded-random.ts'
import type { UserRecord } from '../model/records.ts'
import type { RuleContext } from './context.ts'
import { parseInput } from './organisations.ts'
import { shapeProfile } from './shape-profile.ts'

/**
 * The answer shapes organisation `orgId` answers in: its own setting, or the mock's. Its record
 * names a mode or a case of this version: its schema checks it (a state file naming another is
 * refused at load).
 */
export function shapesOf(ctx: RuleContext, orgId: string): Shapes {
  return ctx.db.organisationShapes.get(orgId)?.shapes ?? ctx.shapes
}

/** The case a user's answers take; `undefined` for `full`, which sends the record as it is. */
function caseOfUser(ctx: RuleContext, user: UserRecord): ShapeCase | undefined {
  const shapes = shapesOf(ctx, user.orgId)
  if (shapes === 'full') return undefined
  if (shapes !== 'varied') return caseNamed(shapes)
  const taken = ctx.db.userShapes.get(user.userId)?.shapeCase
  return taken === undefined ? caseAt(hashOf(ctx.seed, user.orgId, user.id)) : caseNamed(taken)
}

/**
 * `profile` (the full answer for `user`) in the forms of the user's case, and the name of that case
 * (`full` for none): the hook identify, the inspector and `GET /__mock/user` build their answer
 * through, and what the journal notes of an identify answer.
 */
export function shapeAnswer(
  ctx: RuleContext,
  user: UserRecord,
  profile: Required<UserProfile>,
): { profile: UserProfile; shape: string } {
  const shape = caseOfUser(ctx, user)
  return shape
    ? { profile: shapeProfile(profile, shape.forms), shape: shape.name }
    : { profile, shape: 'full' }
}

/**
 * The case of a user identify is creating with `userId` in `orgId`, written down where it must be
 * kept: under `varied`, the next case of the organisation's turn (the first N users take all N
 * cases, in an order drawn from the seed), kept for the user. `undefined` under `full`.
 */
export async function takeNewUserCase(
  ctx: RuleContext,
  orgId: string,
  userId: string,
): Promise<ShapeCase | undefined> {
  const shapes = shapesOf(ctx, orgId)
  if (shapes === 'full') return undefined
  if (shapes !== 'varied') return caseNamed(shapes)
  const { db } = ctx
  const own = db.organisationShapes.get(orgId)
  const turn = own?.variedUsers ?? 0
  if (own) db.update('organisationShapes', own, { variedUsers: turn + 1 })
  else await db.collections.organisationShapes.create({ orgId, shapes: null, variedUsers: 1 })
  const order = turnOrder(ctx.seed, orgId)
  const shape = shapeCases[order[turn % order.length] ?? 0] ?? firstCase
  await db.collections.userShapes.create({ userId, shapeCase: shape.name })
  return shape
}

/**
 * Sets organisation `orgId`'s own answer shapes: 404 `Not found` for an organisation the mock
 * does not have, a `TypeError` (400) for anything but a mode or a case's name.
 *
 * @example setOrganisationShapes(ctx, 'acme', 'varied')
 */
export async function setOrganisationShapes(
  ctx: RuleContext,
  orgId: string,
  shapes: unknown,
): Promise<void> {
  const { db } = ctx
  if (!db.organisations.get(orgId)) throw new ApiError('notFound')
  const parsed = parseInput(shapesSchema, shapes)
  const own = db.organisationShapes.get(orgId)
  if (own) db.update('organisationShapes', own, { shapes: parsed })
  else await db.collections.organisationShapes.create({ orgId, shapes: parsed, variedUsers: 0 })
}

const firstCase = shapeCases[0] as ShapeCase

/** The case named `name`, which a record's schema or the `shapes` option has checked. */
function caseNamed(name: string): ShapeCase {
  const shape = shapeCaseNamed(name)
  if (!shape) throw new Error(`no answer-shape case is named ${JSON.stringify(name)}`)
  return shape
}

function caseAt(hash: number): ShapeCase {
  return shapeCases[hash % shapeCases.length] ?? firstCase
}

/** The order in which organisation `orgId`'s new users take the cases: a shuffle drawn from the seed. */
function turnOrder(seed: number, orgId: string): number[] {
  const order = shapeCases.map((_, i) => i)
  const next = seededRandom(hashOf(seed, orgId))
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[order[i], order[j]] = [order[j] as number, order[i] as number]
  }
  return order
}
