import { describeConformance } from '../support/conformance-suite.ts'
import { inProcessTarget } from '../support/target.ts'

describeConformance('MSW handlers via setupServer', inProcessTarget)
