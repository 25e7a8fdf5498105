import { describeConformance } from '../support/conformance-suite.ts'
import { mockFetchTarget } from '../support/target.ts'

describeConformance('api.fetch without msw', mockFetchTarget)
