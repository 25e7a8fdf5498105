import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { PartitionedCollection } from '../../src/model/partitioned-collection.ts'
import { TimeOrder } from '../../src/model/time-order.ts'
import { announceSeed, propertyParameters } from '../support/properties.ts'

announceSeed('time-order')

const recordSchema = z.strictObject({ id: z.int(), ms: z.int() })

describe('TimeOrder', () => {
  it('always offers the earliest live record, whatever the order of creations and removals', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 50 }), fc.constant('remove' as const)), {
          maxLength: 200,
        }),
        fc.array(fc.nat(), { maxLength: 200 }),
        async (steps, picks) => {
          const records = new PartitionedCollection({ schema: recordSchema, partitionSize: 8 })
          const order = new TimeOrder(records, (r) => r.ms)
          let id = 0
          for (const [i, step] of steps.entries()) {
            const live = records.all()
            if (step === 'remove') {
              const victim = live[(picks[i] ?? 0) % Math.max(1, live.length)]
              if (victim) records.delete(victim)
            } else {
              await records.create({ id: id++, ms: step })
            }
            const remaining = records.all()
            expect(order.size).toBe(remaining.length)
            const earliest = Math.min(...remaining.map((r) => r.ms))
            expect(order.first()?.ms).toBe(remaining.length ? earliest : undefined)
            if (order.first()) expect(remaining).toContain(order.first()?.record)
          }
        },
      ),
      propertyParameters(),
    )
  })
})
