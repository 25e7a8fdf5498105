import { httpTarget } from '../support/target.ts'
import { describeVerifyAgainst } from '../support/verify-suite.ts'

describeVerifyAgainst('the standalone server over HTTP', httpTarget)
