import { describeConformance } from '../support/conformance-suite.ts'
import { httpWayIn } from '../support/way-in.ts'

describeConformance('standalone server over HTTP', httpWayIn)
