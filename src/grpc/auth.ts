// The Auth service (etcd's v3rpc/auth.go): decode, call the server's Authenticator with the call's
// credentials, encode, and map errors once.
import type { ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { AuthHandlers } from './generated/etcdserverpb/Auth.js'
import {
  toDomainRoleGrantPermission, toDomainRoleRevokePermission, toDomainUserAdd, toDomainUserChangePassword,
  toPbAuthenticateResponse, toPbAuthHeaderResponse, toPbAuthRoleGetResponse, toPbAuthRoleListResponse,
  toPbAuthStatusResponse, toPbAuthUserGetResponse, toPbAuthUserListResponse,
} from './convert-auth.js'
import { credentialsOf } from './interceptor.js'
import type { ErrorReporter } from './status.js'
import { reply } from './unary.js'

export function authHandlers(def: ServiceDefinition, server: EtcdServer, report: ErrorReporter): UntypedServiceImplementation {
  void def
  const a = server.auth
  const handlers: AuthHandlers = {
    AuthEnable(call, cb) {
      reply(cb, () => a.authEnable(credentialsOf(call)).then(toPbAuthHeaderResponse), report)
    },
    AuthDisable(call, cb) {
      reply(cb, () => a.authDisable(credentialsOf(call)).then(toPbAuthHeaderResponse), report)
    },
    AuthStatus(call, cb) {
      reply(cb, () => a.authStatus(credentialsOf(call)).then(toPbAuthStatusResponse), report)
    },
    Authenticate(call, cb) {
      const { name, password } = call.request
      reply(cb, () => a.authenticate({ name, password }, credentialsOf(call)).then(toPbAuthenticateResponse), report)
    },
    UserAdd(call, cb) {
      reply(cb, () => a.userAdd(toDomainUserAdd(call.request), credentialsOf(call)).then(toPbAuthHeaderResponse), report)
    },
    UserGet(call, cb) {
      reply(cb, () => a.userGet({ name: call.request.name }, credentialsOf(call)).then(toPbAuthUserGetResponse), report)
    },
    UserList(call, cb) {
      reply(cb, () => a.userList(credentialsOf(call)).then(toPbAuthUserListResponse), report)
    },
    UserDelete(call, cb) {
      reply(cb, () => a.userDelete({ name: call.request.name }, credentialsOf(call)).then(toPbAuthHeaderResponse), report)
    },
    UserChangePassword(call, cb) {
      reply(cb, () => a.userChangePassword(toDomainUserChangePassword(call.request), credentialsOf(call)).then(toPbAuthHeaderResponse), report)
    },
    UserGrantRole(call, cb) {
      const { user, role } = call.request
      reply(cb, () => a.userGrantRole({ user, role }, credentialsOf(call)).then(toPbAuthHeaderResponse), report)
    },
    UserRevokeRole(call, cb) {
      const { name, role } = call.request
      reply(cb, () => a.userRevokeRole({ name, role }, credentialsOf(call)).then(toPbAuthHeaderResponse), report)
    },
    RoleAdd(call, cb) {
      reply(cb, () => a.roleAdd({ name: call.request.name }, credentialsOf(call)).then(toPbAuthHeaderResponse), report)
    },
    RoleGet(call, cb) {
      reply(cb, () => a.roleGet({ role: call.request.role }, credentialsOf(call)).then(toPbAuthRoleGetResponse), report)
    },
    RoleList(call, cb) {
      reply(cb, () => a.roleList(credentialsOf(call)).then(toPbAuthRoleListResponse), report)
    },
    RoleDelete(call, cb) {
      reply(cb, () => a.roleDelete({ role: call.request.role }, credentialsOf(call)).then(toPbAuthHeaderResponse), report)
    },
    RoleGrantPermission(call, cb) {
      reply(cb, () => a.roleGrantPermission(toDomainRoleGrantPermission(call.request), credentialsOf(call)).then(toPbAuthHeaderResponse), report)
    },
    RoleRevokePermission(call, cb) {
      reply(cb, () => a.roleRevokePermission(toDomainRoleRevokePermission(call.request), credentialsOf(call)).then(toPbAuthHeaderResponse), report)
    },
  }
  return handlers
}
