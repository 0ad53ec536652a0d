import { runComplianceSuite } from './suite.js'
import { embeddedAdapter } from './adapters/embedded.js'
runComplianceSuite(embeddedAdapter)
