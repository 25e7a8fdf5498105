import { describeConcurrency } from '../support/concurrency-suite.ts'
import { httpWayIn } from '../support/way-in.ts'

describeConcurrency('the HTTP server', httpWayIn, 40)
