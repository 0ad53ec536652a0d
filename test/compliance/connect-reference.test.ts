import { runComplianceSuite } from './harness/suite.js'
import { connectReferenceAdapter } from './harness/adapters/connect.js'
runComplianceSuite(connectReferenceAdapter)
