import { runInformerSuite } from './suite.js'
import { referenceTarget } from './targets.js'
runInformerSuite(referenceTarget)
