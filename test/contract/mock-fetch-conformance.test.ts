import { describeConformance } from '../support/conformance-suite.ts'
import { apiFetchWayIn } from '../support/way-in.ts'

describeConformance('api.fetch without msw', apiFetchWayIn)
