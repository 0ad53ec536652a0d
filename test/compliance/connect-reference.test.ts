import { runComplianceSuite } from './suite.js'
import { connectReferenceAdapter } from './adapters/connect.js'
runComplianceSuite(connectReferenceAdapter)
