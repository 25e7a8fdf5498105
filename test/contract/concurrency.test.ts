import { describeConcurrency } from '../support/concurrency-suite.ts'
import { dispatchWayIn, mswWayIn } from '../support/way-in.ts'

describeConcurrency('MockCore.dispatch', dispatchWayIn, 200)
describeConcurrency('the MSW handlers', mswWayIn, 40)
