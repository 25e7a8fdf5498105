import { describeConformance } from '../support/conformance-suite.ts'
import { mswWayIn } from '../support/way-in.ts'

describeConformance('MSW handlers via setupServer', mswWayIn)
