import { runComplianceSuite } from './suite.js'
import { connectAdapter } from './adapters/connect.js'
runComplianceSuite(connectAdapter)
