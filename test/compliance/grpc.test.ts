import { runComplianceSuite } from './suite.js'
import { grpcAdapter } from './adapters/grpc.js'
runComplianceSuite(grpcAdapter)
