import { runInformerSuite } from './suite.js'
import { embeddedTarget } from './targets.js'
runInformerSuite(embeddedTarget)
