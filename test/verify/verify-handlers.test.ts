import { describeVerifyAgainst } from '../support/verify-suite.ts'
import { mswWayIn } from '../support/way-in.ts'

describeVerifyAgainst('the MSW handlers via setupServer', mswWayIn)
