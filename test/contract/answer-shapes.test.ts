import { describeAnswerShapes, inProcessControls } from '../support/answer-shapes-suite.ts'
import { apiFetchWayIn, mswWayIn } from '../support/way-in.ts'

describeAnswerShapes('MSW handlers via setupServer', mswWayIn, inProcessControls)
describeAnswerShapes('api.fetch', apiFetchWayIn, inProcessControls)
