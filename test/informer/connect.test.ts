import { runInformerSuite } from './suite.js'
import { connectTarget } from './targets.js'
runInformerSuite(connectTarget)
