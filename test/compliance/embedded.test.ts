import { runComplianceSuite } from './harness/suite.js'
import { embeddedAdapter } from './harness/adapters/embedded.js'
runComplianceSuite(embeddedAdapter)
