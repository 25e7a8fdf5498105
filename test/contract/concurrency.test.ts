import { describeConcurrency, dispatchWay, targetWay } from '../support/concurrency-suite.ts'
import { inProcessTarget } from '../support/target.ts'

describeConcurrency('MockCore.dispatch', dispatchWay, 200)
describeConcurrency('the MSW handlers', targetWay(inProcessTarget), 40)
