import { describeConcurrency, targetWay } from '../support/concurrency-suite.ts'
import { httpTarget } from '../support/target.ts'

describeConcurrency('the HTTP server', targetWay(httpTarget), 40)
