import { runComplianceSuite } from './harness/suite.js'
import { grpcAdapter } from './harness/adapters/grpc.js'
runComplianceSuite(grpcAdapter)
