import { describeAnswerShapes, httpControls } from '../support/answer-shapes-suite.ts'
import { httpWayIn } from '../support/way-in.ts'

// Its own file: the MSW handlers' suite intercepts every fetch of the process it runs in.
describeAnswerShapes('standalone server over HTTP', httpWayIn, httpControls)
