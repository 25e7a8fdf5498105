import { describeConformance } from '../support/conformance-suite.ts'
import { httpTarget } from '../support/target.ts'

describeConformance('standalone server over HTTP', httpTarget)
