import { type ShapeForms, shapeDimensions, timestampFields } from '../api/answer-shapes.ts'
import type { UserProfile } from '../api/api-schemas.ts'

/** Each offset form's suffix, as the table gives it, and its distance from UTC in minutes. */
const offsets = Object.fromEntries(
  Object.entries(shapeDimensions.offset.forms).map(([form, { suffix }]) => [
    form,
    { suffix, minutes: offsetMinutes(suffix) },
  ]),
) as Record<ShapeForms['offset'], { suffix: string; minutes: number }>

/** The distance from UTC of an offset as ISO 8601 writes it (`+05:30`), in minutes; `Z`: 0. */
function offsetMinutes(suffix: string): number {
  const match = /^([+-])(\d{2}):(\d{2})$/.exec(suffix)
  if (!match) return 0
  const minutes = Number(match[2]) * 60 + Number(match[3])
  return match[1] === '-' ? -minutes : minutes
}

/**
 * The profile of an answer in the forms of one case: `profile` is the full answer (every field
 * present, as stored). A field whose value is `null` is sent as `null` or left out; a timestamp is
 * written with the case's offset and fractional seconds, the same instant; `userGroups` in stored
 * or reversed order. A value the record holds is always sent, with the same meaning.
 *
 * @example
 * shapeProfile(profile, shapeCaseNamed('absent-fraction-reversed-unregistered').forms)
 */
export function shapeProfile(profile: Required<UserProfile>, forms: ShapeForms): UserProfile {
  const shaped: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(profile)) {
    if (value === null && forms[field as keyof ShapeForms] === 'absent') continue
    shaped[field] = value
  }
  for (const field of timestampFields) {
    const value = profile[field]
    if (typeof value === 'string') shaped[field] = writeInstant(value, forms)
  }
  if (forms.groupOrder === 'reversed') shaped.userGroups = [...profile.userGroups].reverse()
  return shaped as UserProfile
}

const stamp = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/i

/**
 * `text` (an ISO 8601 date-time with an offset, as the record holds it) written with the case's
 * offset and fractional seconds: the same instant, to the digit. A fraction other than zero is
 * always kept, whole seconds or not; one that a shift would take out of the years 0000–9999 is
 * sent as stored.
 */
function writeInstant(text: string, forms: ShapeForms): string {
  const match = stamp.exec(text)
  if (!match) return text
  const [, y, mo, d, h, mi, s, digits = '', zone = 'Z'] = match
  const date = new Date(0)
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d))
  date.setUTCHours(Number(h), Number(mi), Number(s))
  const target = offsets[forms.offset]
  const local = new Date(
    date.getTime() + (target.minutes - offsetMinutes(zone.toUpperCase())) * 60_000,
  )
  const year = local.getUTCFullYear()
  if (year < 0 || year > 9999) return text
  const kept = digits.replace(/0+$/, '')
  const fraction = forms.fraction === 'fraction' ? kept.padEnd(3, '0') : kept
  const two = (n: number) => String(n).padStart(2, '0')
  return `${String(year).padStart(4, '0')}-${two(local.getUTCMonth() + 1)}-${two(local.getUTCDate())}T${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}${fraction && `.${fraction}`}${target.suffix}`
}
