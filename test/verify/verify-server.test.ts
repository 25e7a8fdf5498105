import { describeVerifyAgainst } from '../support/verify-suite.ts'
import { httpWayIn } from '../support/way-in.ts'

describeVerifyAgainst('the standalone server over HTTP', httpWayIn)
