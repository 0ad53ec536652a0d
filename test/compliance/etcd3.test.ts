import { runComplianceSuite } from './harness/suite.js'
import { etcd3Adapter } from './harness/adapters/etcd3.js'
runComplianceSuite(etcd3Adapter)
