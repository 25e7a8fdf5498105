import * as z from 'zod'
import {
  type CollectionName,
  collectionTable,
  forEachCollection,
  type RecordSchemaOf,
} from './collections.ts'

/** Every record of the mock, as plain data: what `state()` returns and a dataset seeds. */
export const mockStateSchema = z.strictObject(
  forEachCollection<{ [C in CollectionName]: z.ZodArray<RecordSchemaOf<C>> }>((name) =>
    z.array(collectionTable[name].schema),
  ),
)

/** Every record of the mock, as plain data: what `state()` returns and a dataset seeds. */
export type MockState = z.output<typeof mockStateSchema>

/** A state without a record: every collection empty. */
export function emptyState(): MockState {
  return forEachCollection<MockState>(() => [])
}
