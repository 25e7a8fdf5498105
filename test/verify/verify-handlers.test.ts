import { inProcessTarget } from '../support/target.ts'
import { describeVerifyAgainst } from '../support/verify-suite.ts'

describeVerifyAgainst('the MSW handlers via setupServer', inProcessTarget)
