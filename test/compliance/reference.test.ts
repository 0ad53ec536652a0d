import { runComplianceSuite } from './suite.js'
import { referenceAdapter } from './adapters/reference.js'
runComplianceSuite(referenceAdapter)
