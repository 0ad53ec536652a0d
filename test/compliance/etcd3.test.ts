import { runComplianceSuite } from './suite.js'
import { etcd3Adapter } from './adapters/etcd3.js'
runComplianceSuite(etcd3Adapter)
