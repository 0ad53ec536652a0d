import { runComplianceSuite } from './harness/suite.js'
import { connectAdapter } from './harness/adapters/connect.js'
runComplianceSuite(connectAdapter)
