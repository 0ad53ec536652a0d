import { runComplianceSuite } from './harness/suite.js'
import { referenceAdapter } from './harness/adapters/reference.js'
runComplianceSuite(referenceAdapter)
