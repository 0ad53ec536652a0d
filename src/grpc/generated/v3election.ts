import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Permission as _authpb_Permission, Permission__Output as _authpb_Permission__Output } from './authpb/Permission.js';
import type { Role as _authpb_Role, Role__Output as _authpb_Role__Output } from './authpb/Role.js';
import type { User as _authpb_User, User__Output as _authpb_User__Output } from './authpb/User.js';
import type { UserAddOptions as _authpb_UserAddOptions, UserAddOptions__Output as _authpb_UserAddOptions__Output } from './authpb/UserAddOptions.js';
import type { AlarmMember as _etcdserverpb_AlarmMember, AlarmMember__Output as _etcdserverpb_AlarmMember__Output } from './etcdserverpb/AlarmMember.js';
import type { AlarmRequest as _etcdserverpb_AlarmRequest, AlarmRequest__Output as _etcdserverpb_AlarmRequest__Output } from './etcdserverpb/AlarmRequest.js';
import type { AlarmResponse as _etcdserverpb_AlarmResponse, AlarmResponse__Output as _etcdserverpb_AlarmResponse__Output } from './etcdserverpb/AlarmResponse.js';
import type { AuthClient as _etcdserverpb_AuthClient, AuthDefinition as _etcdserverpb_AuthDefinition } from './etcdserverpb/Auth.js';
import type { AuthDisableRequest as _etcdserverpb_AuthDisableRequest, AuthDisableRequest__Output as _etcdserverpb_AuthDisableRequest__Output } from './etcdserverpb/AuthDisableRequest.js';
import type { AuthDisableResponse as _etcdserverpb_AuthDisableResponse, AuthDisableResponse__Output as _etcdserverpb_AuthDisableResponse__Output } from './etcdserverpb/AuthDisableResponse.js';
import type { AuthEnableRequest as _etcdserverpb_AuthEnableRequest, AuthEnableRequest__Output as _etcdserverpb_AuthEnableRequest__Output } from './etcdserverpb/AuthEnableRequest.js';
import type { AuthEnableResponse as _etcdserverpb_AuthEnableResponse, AuthEnableResponse__Output as _etcdserverpb_AuthEnableResponse__Output } from './etcdserverpb/AuthEnableResponse.js';
import type { AuthRoleAddRequest as _etcdserverpb_AuthRoleAddRequest, AuthRoleAddRequest__Output as _etcdserverpb_AuthRoleAddRequest__Output } from './etcdserverpb/AuthRoleAddRequest.js';
import type { AuthRoleAddResponse as _etcdserverpb_AuthRoleAddResponse, AuthRoleAddResponse__Output as _etcdserverpb_AuthRoleAddResponse__Output } from './etcdserverpb/AuthRoleAddResponse.js';
import type { AuthRoleDeleteRequest as _etcdserverpb_AuthRoleDeleteRequest, AuthRoleDeleteRequest__Output as _etcdserverpb_AuthRoleDeleteRequest__Output } from './etcdserverpb/AuthRoleDeleteRequest.js';
import type { AuthRoleDeleteResponse as _etcdserverpb_AuthRoleDeleteResponse, AuthRoleDeleteResponse__Output as _etcdserverpb_AuthRoleDeleteResponse__Output } from './etcdserverpb/AuthRoleDeleteResponse.js';
import type { AuthRoleGetRequest as _etcdserverpb_AuthRoleGetRequest, AuthRoleGetRequest__Output as _etcdserverpb_AuthRoleGetRequest__Output } from './etcdserverpb/AuthRoleGetRequest.js';
import type { AuthRoleGetResponse as _etcdserverpb_AuthRoleGetResponse, AuthRoleGetResponse__Output as _etcdserverpb_AuthRoleGetResponse__Output } from './etcdserverpb/AuthRoleGetResponse.js';
import type { AuthRoleGrantPermissionRequest as _etcdserverpb_AuthRoleGrantPermissionRequest, AuthRoleGrantPermissionRequest__Output as _etcdserverpb_AuthRoleGrantPermissionRequest__Output } from './etcdserverpb/AuthRoleGrantPermissionRequest.js';
import type { AuthRoleGrantPermissionResponse as _etcdserverpb_AuthRoleGrantPermissionResponse, AuthRoleGrantPermissionResponse__Output as _etcdserverpb_AuthRoleGrantPermissionResponse__Output } from './etcdserverpb/AuthRoleGrantPermissionResponse.js';
import type { AuthRoleListRequest as _etcdserverpb_AuthRoleListRequest, AuthRoleListRequest__Output as _etcdserverpb_AuthRoleListRequest__Output } from './etcdserverpb/AuthRoleListRequest.js';
import type { AuthRoleListResponse as _etcdserverpb_AuthRoleListResponse, AuthRoleListResponse__Output as _etcdserverpb_AuthRoleListResponse__Output } from './etcdserverpb/AuthRoleListResponse.js';
import type { AuthRoleRevokePermissionRequest as _etcdserverpb_AuthRoleRevokePermissionRequest, AuthRoleRevokePermissionRequest__Output as _etcdserverpb_AuthRoleRevokePermissionRequest__Output } from './etcdserverpb/AuthRoleRevokePermissionRequest.js';
import type { AuthRoleRevokePermissionResponse as _etcdserverpb_AuthRoleRevokePermissionResponse, AuthRoleRevokePermissionResponse__Output as _etcdserverpb_AuthRoleRevokePermissionResponse__Output } from './etcdserverpb/AuthRoleRevokePermissionResponse.js';
import type { AuthStatusRequest as _etcdserverpb_AuthStatusRequest, AuthStatusRequest__Output as _etcdserverpb_AuthStatusRequest__Output } from './etcdserverpb/AuthStatusRequest.js';
import type { AuthStatusResponse as _etcdserverpb_AuthStatusResponse, AuthStatusResponse__Output as _etcdserverpb_AuthStatusResponse__Output } from './etcdserverpb/AuthStatusResponse.js';
import type { AuthUserAddRequest as _etcdserverpb_AuthUserAddRequest, AuthUserAddRequest__Output as _etcdserverpb_AuthUserAddRequest__Output } from './etcdserverpb/AuthUserAddRequest.js';
import type { AuthUserAddResponse as _etcdserverpb_AuthUserAddResponse, AuthUserAddResponse__Output as _etcdserverpb_AuthUserAddResponse__Output } from './etcdserverpb/AuthUserAddResponse.js';
import type { AuthUserChangePasswordRequest as _etcdserverpb_AuthUserChangePasswordRequest, AuthUserChangePasswordRequest__Output as _etcdserverpb_AuthUserChangePasswordRequest__Output } from './etcdserverpb/AuthUserChangePasswordRequest.js';
import type { AuthUserChangePasswordResponse as _etcdserverpb_AuthUserChangePasswordResponse, AuthUserChangePasswordResponse__Output as _etcdserverpb_AuthUserChangePasswordResponse__Output } from './etcdserverpb/AuthUserChangePasswordResponse.js';
import type { AuthUserDeleteRequest as _etcdserverpb_AuthUserDeleteRequest, AuthUserDeleteRequest__Output as _etcdserverpb_AuthUserDeleteRequest__Output } from './etcdserverpb/AuthUserDeleteRequest.js';
import type { AuthUserDeleteResponse as _etcdserverpb_AuthUserDeleteResponse, AuthUserDeleteResponse__Output as _etcdserverpb_AuthUserDeleteResponse__Output } from './etcdserverpb/AuthUserDeleteResponse.js';
import type { AuthUserGetRequest as _etcdserverpb_AuthUserGetRequest, AuthUserGetRequest__Output as _etcdserverpb_AuthUserGetRequest__Output } from './etcdserverpb/AuthUserGetRequest.js';
import type { AuthUserGetResponse as _etcdserverpb_AuthUserGetResponse, AuthUserGetResponse__Output as _etcdserverpb_AuthUserGetResponse__Output } from './etcdserverpb/AuthUserGetResponse.js';
import type { AuthUserGrantRoleRequest as _etcdserverpb_AuthUserGrantRoleRequest, AuthUserGrantRoleRequest__Output as _etcdserverpb_AuthUserGrantRoleRequest__Output } from './etcdserverpb/AuthUserGrantRoleRequest.js';
import type { AuthUserGrantRoleResponse as _etcdserverpb_AuthUserGrantRoleResponse, AuthUserGrantRoleResponse__Output as _etcdserverpb_AuthUserGrantRoleResponse__Output } from './etcdserverpb/AuthUserGrantRoleResponse.js';
import type { AuthUserListRequest as _etcdserverpb_AuthUserListRequest, AuthUserListRequest__Output as _etcdserverpb_AuthUserListRequest__Output } from './etcdserverpb/AuthUserListRequest.js';
import type { AuthUserListResponse as _etcdserverpb_AuthUserListResponse, AuthUserListResponse__Output as _etcdserverpb_AuthUserListResponse__Output } from './etcdserverpb/AuthUserListResponse.js';
import type { AuthUserRevokeRoleRequest as _etcdserverpb_AuthUserRevokeRoleRequest, AuthUserRevokeRoleRequest__Output as _etcdserverpb_AuthUserRevokeRoleRequest__Output } from './etcdserverpb/AuthUserRevokeRoleRequest.js';
import type { AuthUserRevokeRoleResponse as _etcdserverpb_AuthUserRevokeRoleResponse, AuthUserRevokeRoleResponse__Output as _etcdserverpb_AuthUserRevokeRoleResponse__Output } from './etcdserverpb/AuthUserRevokeRoleResponse.js';
import type { AuthenticateRequest as _etcdserverpb_AuthenticateRequest, AuthenticateRequest__Output as _etcdserverpb_AuthenticateRequest__Output } from './etcdserverpb/AuthenticateRequest.js';
import type { AuthenticateResponse as _etcdserverpb_AuthenticateResponse, AuthenticateResponse__Output as _etcdserverpb_AuthenticateResponse__Output } from './etcdserverpb/AuthenticateResponse.js';
import type { ClusterClient as _etcdserverpb_ClusterClient, ClusterDefinition as _etcdserverpb_ClusterDefinition } from './etcdserverpb/Cluster.js';
import type { CompactionRequest as _etcdserverpb_CompactionRequest, CompactionRequest__Output as _etcdserverpb_CompactionRequest__Output } from './etcdserverpb/CompactionRequest.js';
import type { CompactionResponse as _etcdserverpb_CompactionResponse, CompactionResponse__Output as _etcdserverpb_CompactionResponse__Output } from './etcdserverpb/CompactionResponse.js';
import type { Compare as _etcdserverpb_Compare, Compare__Output as _etcdserverpb_Compare__Output } from './etcdserverpb/Compare.js';
import type { DefragmentRequest as _etcdserverpb_DefragmentRequest, DefragmentRequest__Output as _etcdserverpb_DefragmentRequest__Output } from './etcdserverpb/DefragmentRequest.js';
import type { DefragmentResponse as _etcdserverpb_DefragmentResponse, DefragmentResponse__Output as _etcdserverpb_DefragmentResponse__Output } from './etcdserverpb/DefragmentResponse.js';
import type { DeleteRangeRequest as _etcdserverpb_DeleteRangeRequest, DeleteRangeRequest__Output as _etcdserverpb_DeleteRangeRequest__Output } from './etcdserverpb/DeleteRangeRequest.js';
import type { DeleteRangeResponse as _etcdserverpb_DeleteRangeResponse, DeleteRangeResponse__Output as _etcdserverpb_DeleteRangeResponse__Output } from './etcdserverpb/DeleteRangeResponse.js';
import type { DowngradeRequest as _etcdserverpb_DowngradeRequest, DowngradeRequest__Output as _etcdserverpb_DowngradeRequest__Output } from './etcdserverpb/DowngradeRequest.js';
import type { DowngradeResponse as _etcdserverpb_DowngradeResponse, DowngradeResponse__Output as _etcdserverpb_DowngradeResponse__Output } from './etcdserverpb/DowngradeResponse.js';
import type { HashKVRequest as _etcdserverpb_HashKVRequest, HashKVRequest__Output as _etcdserverpb_HashKVRequest__Output } from './etcdserverpb/HashKVRequest.js';
import type { HashKVResponse as _etcdserverpb_HashKVResponse, HashKVResponse__Output as _etcdserverpb_HashKVResponse__Output } from './etcdserverpb/HashKVResponse.js';
import type { HashRequest as _etcdserverpb_HashRequest, HashRequest__Output as _etcdserverpb_HashRequest__Output } from './etcdserverpb/HashRequest.js';
import type { HashResponse as _etcdserverpb_HashResponse, HashResponse__Output as _etcdserverpb_HashResponse__Output } from './etcdserverpb/HashResponse.js';
import type { KVClient as _etcdserverpb_KVClient, KVDefinition as _etcdserverpb_KVDefinition } from './etcdserverpb/KV.js';
import type { LeaseClient as _etcdserverpb_LeaseClient, LeaseDefinition as _etcdserverpb_LeaseDefinition } from './etcdserverpb/Lease.js';
import type { LeaseCheckpoint as _etcdserverpb_LeaseCheckpoint, LeaseCheckpoint__Output as _etcdserverpb_LeaseCheckpoint__Output } from './etcdserverpb/LeaseCheckpoint.js';
import type { LeaseCheckpointRequest as _etcdserverpb_LeaseCheckpointRequest, LeaseCheckpointRequest__Output as _etcdserverpb_LeaseCheckpointRequest__Output } from './etcdserverpb/LeaseCheckpointRequest.js';
import type { LeaseCheckpointResponse as _etcdserverpb_LeaseCheckpointResponse, LeaseCheckpointResponse__Output as _etcdserverpb_LeaseCheckpointResponse__Output } from './etcdserverpb/LeaseCheckpointResponse.js';
import type { LeaseGrantRequest as _etcdserverpb_LeaseGrantRequest, LeaseGrantRequest__Output as _etcdserverpb_LeaseGrantRequest__Output } from './etcdserverpb/LeaseGrantRequest.js';
import type { LeaseGrantResponse as _etcdserverpb_LeaseGrantResponse, LeaseGrantResponse__Output as _etcdserverpb_LeaseGrantResponse__Output } from './etcdserverpb/LeaseGrantResponse.js';
import type { LeaseKeepAliveRequest as _etcdserverpb_LeaseKeepAliveRequest, LeaseKeepAliveRequest__Output as _etcdserverpb_LeaseKeepAliveRequest__Output } from './etcdserverpb/LeaseKeepAliveRequest.js';
import type { LeaseKeepAliveResponse as _etcdserverpb_LeaseKeepAliveResponse, LeaseKeepAliveResponse__Output as _etcdserverpb_LeaseKeepAliveResponse__Output } from './etcdserverpb/LeaseKeepAliveResponse.js';
import type { LeaseLeasesRequest as _etcdserverpb_LeaseLeasesRequest, LeaseLeasesRequest__Output as _etcdserverpb_LeaseLeasesRequest__Output } from './etcdserverpb/LeaseLeasesRequest.js';
import type { LeaseLeasesResponse as _etcdserverpb_LeaseLeasesResponse, LeaseLeasesResponse__Output as _etcdserverpb_LeaseLeasesResponse__Output } from './etcdserverpb/LeaseLeasesResponse.js';
import type { LeaseRevokeRequest as _etcdserverpb_LeaseRevokeRequest, LeaseRevokeRequest__Output as _etcdserverpb_LeaseRevokeRequest__Output } from './etcdserverpb/LeaseRevokeRequest.js';
import type { LeaseRevokeResponse as _etcdserverpb_LeaseRevokeResponse, LeaseRevokeResponse__Output as _etcdserverpb_LeaseRevokeResponse__Output } from './etcdserverpb/LeaseRevokeResponse.js';
import type { LeaseStatus as _etcdserverpb_LeaseStatus, LeaseStatus__Output as _etcdserverpb_LeaseStatus__Output } from './etcdserverpb/LeaseStatus.js';
import type { LeaseTimeToLiveRequest as _etcdserverpb_LeaseTimeToLiveRequest, LeaseTimeToLiveRequest__Output as _etcdserverpb_LeaseTimeToLiveRequest__Output } from './etcdserverpb/LeaseTimeToLiveRequest.js';
import type { LeaseTimeToLiveResponse as _etcdserverpb_LeaseTimeToLiveResponse, LeaseTimeToLiveResponse__Output as _etcdserverpb_LeaseTimeToLiveResponse__Output } from './etcdserverpb/LeaseTimeToLiveResponse.js';
import type { MaintenanceClient as _etcdserverpb_MaintenanceClient, MaintenanceDefinition as _etcdserverpb_MaintenanceDefinition } from './etcdserverpb/Maintenance.js';
import type { Member as _etcdserverpb_Member, Member__Output as _etcdserverpb_Member__Output } from './etcdserverpb/Member.js';
import type { MemberAddRequest as _etcdserverpb_MemberAddRequest, MemberAddRequest__Output as _etcdserverpb_MemberAddRequest__Output } from './etcdserverpb/MemberAddRequest.js';
import type { MemberAddResponse as _etcdserverpb_MemberAddResponse, MemberAddResponse__Output as _etcdserverpb_MemberAddResponse__Output } from './etcdserverpb/MemberAddResponse.js';
import type { MemberListRequest as _etcdserverpb_MemberListRequest, MemberListRequest__Output as _etcdserverpb_MemberListRequest__Output } from './etcdserverpb/MemberListRequest.js';
import type { MemberListResponse as _etcdserverpb_MemberListResponse, MemberListResponse__Output as _etcdserverpb_MemberListResponse__Output } from './etcdserverpb/MemberListResponse.js';
import type { MemberPromoteRequest as _etcdserverpb_MemberPromoteRequest, MemberPromoteRequest__Output as _etcdserverpb_MemberPromoteRequest__Output } from './etcdserverpb/MemberPromoteRequest.js';
import type { MemberPromoteResponse as _etcdserverpb_MemberPromoteResponse, MemberPromoteResponse__Output as _etcdserverpb_MemberPromoteResponse__Output } from './etcdserverpb/MemberPromoteResponse.js';
import type { MemberRemoveRequest as _etcdserverpb_MemberRemoveRequest, MemberRemoveRequest__Output as _etcdserverpb_MemberRemoveRequest__Output } from './etcdserverpb/MemberRemoveRequest.js';
import type { MemberRemoveResponse as _etcdserverpb_MemberRemoveResponse, MemberRemoveResponse__Output as _etcdserverpb_MemberRemoveResponse__Output } from './etcdserverpb/MemberRemoveResponse.js';
import type { MemberUpdateRequest as _etcdserverpb_MemberUpdateRequest, MemberUpdateRequest__Output as _etcdserverpb_MemberUpdateRequest__Output } from './etcdserverpb/MemberUpdateRequest.js';
import type { MemberUpdateResponse as _etcdserverpb_MemberUpdateResponse, MemberUpdateResponse__Output as _etcdserverpb_MemberUpdateResponse__Output } from './etcdserverpb/MemberUpdateResponse.js';
import type { MoveLeaderRequest as _etcdserverpb_MoveLeaderRequest, MoveLeaderRequest__Output as _etcdserverpb_MoveLeaderRequest__Output } from './etcdserverpb/MoveLeaderRequest.js';
import type { MoveLeaderResponse as _etcdserverpb_MoveLeaderResponse, MoveLeaderResponse__Output as _etcdserverpb_MoveLeaderResponse__Output } from './etcdserverpb/MoveLeaderResponse.js';
import type { PutRequest as _etcdserverpb_PutRequest, PutRequest__Output as _etcdserverpb_PutRequest__Output } from './etcdserverpb/PutRequest.js';
import type { PutResponse as _etcdserverpb_PutResponse, PutResponse__Output as _etcdserverpb_PutResponse__Output } from './etcdserverpb/PutResponse.js';
import type { RangeRequest as _etcdserverpb_RangeRequest, RangeRequest__Output as _etcdserverpb_RangeRequest__Output } from './etcdserverpb/RangeRequest.js';
import type { RangeResponse as _etcdserverpb_RangeResponse, RangeResponse__Output as _etcdserverpb_RangeResponse__Output } from './etcdserverpb/RangeResponse.js';
import type { RequestOp as _etcdserverpb_RequestOp, RequestOp__Output as _etcdserverpb_RequestOp__Output } from './etcdserverpb/RequestOp.js';
import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from './etcdserverpb/ResponseHeader.js';
import type { ResponseOp as _etcdserverpb_ResponseOp, ResponseOp__Output as _etcdserverpb_ResponseOp__Output } from './etcdserverpb/ResponseOp.js';
import type { SnapshotRequest as _etcdserverpb_SnapshotRequest, SnapshotRequest__Output as _etcdserverpb_SnapshotRequest__Output } from './etcdserverpb/SnapshotRequest.js';
import type { SnapshotResponse as _etcdserverpb_SnapshotResponse, SnapshotResponse__Output as _etcdserverpb_SnapshotResponse__Output } from './etcdserverpb/SnapshotResponse.js';
import type { StatusRequest as _etcdserverpb_StatusRequest, StatusRequest__Output as _etcdserverpb_StatusRequest__Output } from './etcdserverpb/StatusRequest.js';
import type { StatusResponse as _etcdserverpb_StatusResponse, StatusResponse__Output as _etcdserverpb_StatusResponse__Output } from './etcdserverpb/StatusResponse.js';
import type { TxnRequest as _etcdserverpb_TxnRequest, TxnRequest__Output as _etcdserverpb_TxnRequest__Output } from './etcdserverpb/TxnRequest.js';
import type { TxnResponse as _etcdserverpb_TxnResponse, TxnResponse__Output as _etcdserverpb_TxnResponse__Output } from './etcdserverpb/TxnResponse.js';
import type { WatchClient as _etcdserverpb_WatchClient, WatchDefinition as _etcdserverpb_WatchDefinition } from './etcdserverpb/Watch.js';
import type { WatchCancelRequest as _etcdserverpb_WatchCancelRequest, WatchCancelRequest__Output as _etcdserverpb_WatchCancelRequest__Output } from './etcdserverpb/WatchCancelRequest.js';
import type { WatchCreateRequest as _etcdserverpb_WatchCreateRequest, WatchCreateRequest__Output as _etcdserverpb_WatchCreateRequest__Output } from './etcdserverpb/WatchCreateRequest.js';
import type { WatchProgressRequest as _etcdserverpb_WatchProgressRequest, WatchProgressRequest__Output as _etcdserverpb_WatchProgressRequest__Output } from './etcdserverpb/WatchProgressRequest.js';
import type { WatchRequest as _etcdserverpb_WatchRequest, WatchRequest__Output as _etcdserverpb_WatchRequest__Output } from './etcdserverpb/WatchRequest.js';
import type { WatchResponse as _etcdserverpb_WatchResponse, WatchResponse__Output as _etcdserverpb_WatchResponse__Output } from './etcdserverpb/WatchResponse.js';
import type { Event as _mvccpb_Event, Event__Output as _mvccpb_Event__Output } from './mvccpb/Event.js';
import type { KeyValue as _mvccpb_KeyValue, KeyValue__Output as _mvccpb_KeyValue__Output } from './mvccpb/KeyValue.js';
import type { CampaignRequest as _v3electionpb_CampaignRequest, CampaignRequest__Output as _v3electionpb_CampaignRequest__Output } from './v3electionpb/CampaignRequest.js';
import type { CampaignResponse as _v3electionpb_CampaignResponse, CampaignResponse__Output as _v3electionpb_CampaignResponse__Output } from './v3electionpb/CampaignResponse.js';
import type { ElectionClient as _v3electionpb_ElectionClient, ElectionDefinition as _v3electionpb_ElectionDefinition } from './v3electionpb/Election.js';
import type { LeaderKey as _v3electionpb_LeaderKey, LeaderKey__Output as _v3electionpb_LeaderKey__Output } from './v3electionpb/LeaderKey.js';
import type { LeaderRequest as _v3electionpb_LeaderRequest, LeaderRequest__Output as _v3electionpb_LeaderRequest__Output } from './v3electionpb/LeaderRequest.js';
import type { LeaderResponse as _v3electionpb_LeaderResponse, LeaderResponse__Output as _v3electionpb_LeaderResponse__Output } from './v3electionpb/LeaderResponse.js';
import type { ProclaimRequest as _v3electionpb_ProclaimRequest, ProclaimRequest__Output as _v3electionpb_ProclaimRequest__Output } from './v3electionpb/ProclaimRequest.js';
import type { ProclaimResponse as _v3electionpb_ProclaimResponse, ProclaimResponse__Output as _v3electionpb_ProclaimResponse__Output } from './v3electionpb/ProclaimResponse.js';
import type { ResignRequest as _v3electionpb_ResignRequest, ResignRequest__Output as _v3electionpb_ResignRequest__Output } from './v3electionpb/ResignRequest.js';
import type { ResignResponse as _v3electionpb_ResignResponse, ResignResponse__Output as _v3electionpb_ResignResponse__Output } from './v3electionpb/ResignResponse.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  authpb: {
    Permission: MessageTypeDefinition<_authpb_Permission, _authpb_Permission__Output>
    Role: MessageTypeDefinition<_authpb_Role, _authpb_Role__Output>
    User: MessageTypeDefinition<_authpb_User, _authpb_User__Output>
    UserAddOptions: MessageTypeDefinition<_authpb_UserAddOptions, _authpb_UserAddOptions__Output>
  }
  etcdserverpb: {
    AlarmMember: MessageTypeDefinition<_etcdserverpb_AlarmMember, _etcdserverpb_AlarmMember__Output>
    AlarmRequest: MessageTypeDefinition<_etcdserverpb_AlarmRequest, _etcdserverpb_AlarmRequest__Output>
    AlarmResponse: MessageTypeDefinition<_etcdserverpb_AlarmResponse, _etcdserverpb_AlarmResponse__Output>
    AlarmType: EnumTypeDefinition
    Auth: SubtypeConstructor<typeof grpc.Client, _etcdserverpb_AuthClient> & { service: _etcdserverpb_AuthDefinition }
    AuthDisableRequest: MessageTypeDefinition<_etcdserverpb_AuthDisableRequest, _etcdserverpb_AuthDisableRequest__Output>
    AuthDisableResponse: MessageTypeDefinition<_etcdserverpb_AuthDisableResponse, _etcdserverpb_AuthDisableResponse__Output>
    AuthEnableRequest: MessageTypeDefinition<_etcdserverpb_AuthEnableRequest, _etcdserverpb_AuthEnableRequest__Output>
    AuthEnableResponse: MessageTypeDefinition<_etcdserverpb_AuthEnableResponse, _etcdserverpb_AuthEnableResponse__Output>
    AuthRoleAddRequest: MessageTypeDefinition<_etcdserverpb_AuthRoleAddRequest, _etcdserverpb_AuthRoleAddRequest__Output>
    AuthRoleAddResponse: MessageTypeDefinition<_etcdserverpb_AuthRoleAddResponse, _etcdserverpb_AuthRoleAddResponse__Output>
    AuthRoleDeleteRequest: MessageTypeDefinition<_etcdserverpb_AuthRoleDeleteRequest, _etcdserverpb_AuthRoleDeleteRequest__Output>
    AuthRoleDeleteResponse: MessageTypeDefinition<_etcdserverpb_AuthRoleDeleteResponse, _etcdserverpb_AuthRoleDeleteResponse__Output>
    AuthRoleGetRequest: MessageTypeDefinition<_etcdserverpb_AuthRoleGetRequest, _etcdserverpb_AuthRoleGetRequest__Output>
    AuthRoleGetResponse: MessageTypeDefinition<_etcdserverpb_AuthRoleGetResponse, _etcdserverpb_AuthRoleGetResponse__Output>
    AuthRoleGrantPermissionRequest: MessageTypeDefinition<_etcdserverpb_AuthRoleGrantPermissionRequest, _etcdserverpb_AuthRoleGrantPermissionRequest__Output>
    AuthRoleGrantPermissionResponse: MessageTypeDefinition<_etcdserverpb_AuthRoleGrantPermissionResponse, _etcdserverpb_AuthRoleGrantPermissionResponse__Output>
    AuthRoleListRequest: MessageTypeDefinition<_etcdserverpb_AuthRoleListRequest, _etcdserverpb_AuthRoleListRequest__Output>
    AuthRoleListResponse: MessageTypeDefinition<_etcdserverpb_AuthRoleListResponse, _etcdserverpb_AuthRoleListResponse__Output>
    AuthRoleRevokePermissionRequest: MessageTypeDefinition<_etcdserverpb_AuthRoleRevokePermissionRequest, _etcdserverpb_AuthRoleRevokePermissionRequest__Output>
    AuthRoleRevokePermissionResponse: MessageTypeDefinition<_etcdserverpb_AuthRoleRevokePermissionResponse, _etcdserverpb_AuthRoleRevokePermissionResponse__Output>
    AuthStatusRequest: MessageTypeDefinition<_etcdserverpb_AuthStatusRequest, _etcdserverpb_AuthStatusRequest__Output>
    AuthStatusResponse: MessageTypeDefinition<_etcdserverpb_AuthStatusResponse, _etcdserverpb_AuthStatusResponse__Output>
    AuthUserAddRequest: MessageTypeDefinition<_etcdserverpb_AuthUserAddRequest, _etcdserverpb_AuthUserAddRequest__Output>
    AuthUserAddResponse: MessageTypeDefinition<_etcdserverpb_AuthUserAddResponse, _etcdserverpb_AuthUserAddResponse__Output>
    AuthUserChangePasswordRequest: MessageTypeDefinition<_etcdserverpb_AuthUserChangePasswordRequest, _etcdserverpb_AuthUserChangePasswordRequest__Output>
    AuthUserChangePasswordResponse: MessageTypeDefinition<_etcdserverpb_AuthUserChangePasswordResponse, _etcdserverpb_AuthUserChangePasswordResponse__Output>
    AuthUserDeleteRequest: MessageTypeDefinition<_etcdserverpb_AuthUserDeleteRequest, _etcdserverpb_AuthUserDeleteRequest__Output>
    AuthUserDeleteResponse: MessageTypeDefinition<_etcdserverpb_AuthUserDeleteResponse, _etcdserverpb_AuthUserDeleteResponse__Output>
    AuthUserGetRequest: MessageTypeDefinition<_etcdserverpb_AuthUserGetRequest, _etcdserverpb_AuthUserGetRequest__Output>
    AuthUserGetResponse: MessageTypeDefinition<_etcdserverpb_AuthUserGetResponse, _etcdserverpb_AuthUserGetResponse__Output>
    AuthUserGrantRoleRequest: MessageTypeDefinition<_etcdserverpb_AuthUserGrantRoleRequest, _etcdserverpb_AuthUserGrantRoleRequest__Output>
    AuthUserGrantRoleResponse: MessageTypeDefinition<_etcdserverpb_AuthUserGrantRoleResponse, _etcdserverpb_AuthUserGrantRoleResponse__Output>
    AuthUserListRequest: MessageTypeDefinition<_etcdserverpb_AuthUserListRequest, _etcdserverpb_AuthUserListRequest__Output>
    AuthUserListResponse: MessageTypeDefinition<_etcdserverpb_AuthUserListResponse, _etcdserverpb_AuthUserListResponse__Output>
    AuthUserRevokeRoleRequest: MessageTypeDefinition<_etcdserverpb_AuthUserRevokeRoleRequest, _etcdserverpb_AuthUserRevokeRoleRequest__Output>
    AuthUserRevokeRoleResponse: MessageTypeDefinition<_etcdserverpb_AuthUserRevokeRoleResponse, _etcdserverpb_AuthUserRevokeRoleResponse__Output>
    AuthenticateRequest: MessageTypeDefinition<_etcdserverpb_AuthenticateRequest, _etcdserverpb_AuthenticateRequest__Output>
    AuthenticateResponse: MessageTypeDefinition<_etcdserverpb_AuthenticateResponse, _etcdserverpb_AuthenticateResponse__Output>
    Cluster: SubtypeConstructor<typeof grpc.Client, _etcdserverpb_ClusterClient> & { service: _etcdserverpb_ClusterDefinition }
    CompactionRequest: MessageTypeDefinition<_etcdserverpb_CompactionRequest, _etcdserverpb_CompactionRequest__Output>
    CompactionResponse: MessageTypeDefinition<_etcdserverpb_CompactionResponse, _etcdserverpb_CompactionResponse__Output>
    Compare: MessageTypeDefinition<_etcdserverpb_Compare, _etcdserverpb_Compare__Output>
    DefragmentRequest: MessageTypeDefinition<_etcdserverpb_DefragmentRequest, _etcdserverpb_DefragmentRequest__Output>
    DefragmentResponse: MessageTypeDefinition<_etcdserverpb_DefragmentResponse, _etcdserverpb_DefragmentResponse__Output>
    DeleteRangeRequest: MessageTypeDefinition<_etcdserverpb_DeleteRangeRequest, _etcdserverpb_DeleteRangeRequest__Output>
    DeleteRangeResponse: MessageTypeDefinition<_etcdserverpb_DeleteRangeResponse, _etcdserverpb_DeleteRangeResponse__Output>
    DowngradeRequest: MessageTypeDefinition<_etcdserverpb_DowngradeRequest, _etcdserverpb_DowngradeRequest__Output>
    DowngradeResponse: MessageTypeDefinition<_etcdserverpb_DowngradeResponse, _etcdserverpb_DowngradeResponse__Output>
    HashKVRequest: MessageTypeDefinition<_etcdserverpb_HashKVRequest, _etcdserverpb_HashKVRequest__Output>
    HashKVResponse: MessageTypeDefinition<_etcdserverpb_HashKVResponse, _etcdserverpb_HashKVResponse__Output>
    HashRequest: MessageTypeDefinition<_etcdserverpb_HashRequest, _etcdserverpb_HashRequest__Output>
    HashResponse: MessageTypeDefinition<_etcdserverpb_HashResponse, _etcdserverpb_HashResponse__Output>
    KV: SubtypeConstructor<typeof grpc.Client, _etcdserverpb_KVClient> & { service: _etcdserverpb_KVDefinition }
    Lease: SubtypeConstructor<typeof grpc.Client, _etcdserverpb_LeaseClient> & { service: _etcdserverpb_LeaseDefinition }
    LeaseCheckpoint: MessageTypeDefinition<_etcdserverpb_LeaseCheckpoint, _etcdserverpb_LeaseCheckpoint__Output>
    LeaseCheckpointRequest: MessageTypeDefinition<_etcdserverpb_LeaseCheckpointRequest, _etcdserverpb_LeaseCheckpointRequest__Output>
    LeaseCheckpointResponse: MessageTypeDefinition<_etcdserverpb_LeaseCheckpointResponse, _etcdserverpb_LeaseCheckpointResponse__Output>
    LeaseGrantRequest: MessageTypeDefinition<_etcdserverpb_LeaseGrantRequest, _etcdserverpb_LeaseGrantRequest__Output>
    LeaseGrantResponse: MessageTypeDefinition<_etcdserverpb_LeaseGrantResponse, _etcdserverpb_LeaseGrantResponse__Output>
    LeaseKeepAliveRequest: MessageTypeDefinition<_etcdserverpb_LeaseKeepAliveRequest, _etcdserverpb_LeaseKeepAliveRequest__Output>
    LeaseKeepAliveResponse: MessageTypeDefinition<_etcdserverpb_LeaseKeepAliveResponse, _etcdserverpb_LeaseKeepAliveResponse__Output>
    LeaseLeasesRequest: MessageTypeDefinition<_etcdserverpb_LeaseLeasesRequest, _etcdserverpb_LeaseLeasesRequest__Output>
    LeaseLeasesResponse: MessageTypeDefinition<_etcdserverpb_LeaseLeasesResponse, _etcdserverpb_LeaseLeasesResponse__Output>
    LeaseRevokeRequest: MessageTypeDefinition<_etcdserverpb_LeaseRevokeRequest, _etcdserverpb_LeaseRevokeRequest__Output>
    LeaseRevokeResponse: MessageTypeDefinition<_etcdserverpb_LeaseRevokeResponse, _etcdserverpb_LeaseRevokeResponse__Output>
    LeaseStatus: MessageTypeDefinition<_etcdserverpb_LeaseStatus, _etcdserverpb_LeaseStatus__Output>
    LeaseTimeToLiveRequest: MessageTypeDefinition<_etcdserverpb_LeaseTimeToLiveRequest, _etcdserverpb_LeaseTimeToLiveRequest__Output>
    LeaseTimeToLiveResponse: MessageTypeDefinition<_etcdserverpb_LeaseTimeToLiveResponse, _etcdserverpb_LeaseTimeToLiveResponse__Output>
    Maintenance: SubtypeConstructor<typeof grpc.Client, _etcdserverpb_MaintenanceClient> & { service: _etcdserverpb_MaintenanceDefinition }
    Member: MessageTypeDefinition<_etcdserverpb_Member, _etcdserverpb_Member__Output>
    MemberAddRequest: MessageTypeDefinition<_etcdserverpb_MemberAddRequest, _etcdserverpb_MemberAddRequest__Output>
    MemberAddResponse: MessageTypeDefinition<_etcdserverpb_MemberAddResponse, _etcdserverpb_MemberAddResponse__Output>
    MemberListRequest: MessageTypeDefinition<_etcdserverpb_MemberListRequest, _etcdserverpb_MemberListRequest__Output>
    MemberListResponse: MessageTypeDefinition<_etcdserverpb_MemberListResponse, _etcdserverpb_MemberListResponse__Output>
    MemberPromoteRequest: MessageTypeDefinition<_etcdserverpb_MemberPromoteRequest, _etcdserverpb_MemberPromoteRequest__Output>
    MemberPromoteResponse: MessageTypeDefinition<_etcdserverpb_MemberPromoteResponse, _etcdserverpb_MemberPromoteResponse__Output>
    MemberRemoveRequest: MessageTypeDefinition<_etcdserverpb_MemberRemoveRequest, _etcdserverpb_MemberRemoveRequest__Output>
    MemberRemoveResponse: MessageTypeDefinition<_etcdserverpb_MemberRemoveResponse, _etcdserverpb_MemberRemoveResponse__Output>
    MemberUpdateRequest: MessageTypeDefinition<_etcdserverpb_MemberUpdateRequest, _etcdserverpb_MemberUpdateRequest__Output>
    MemberUpdateResponse: MessageTypeDefinition<_etcdserverpb_MemberUpdateResponse, _etcdserverpb_MemberUpdateResponse__Output>
    MoveLeaderRequest: MessageTypeDefinition<_etcdserverpb_MoveLeaderRequest, _etcdserverpb_MoveLeaderRequest__Output>
    MoveLeaderResponse: MessageTypeDefinition<_etcdserverpb_MoveLeaderResponse, _etcdserverpb_MoveLeaderResponse__Output>
    PutRequest: MessageTypeDefinition<_etcdserverpb_PutRequest, _etcdserverpb_PutRequest__Output>
    PutResponse: MessageTypeDefinition<_etcdserverpb_PutResponse, _etcdserverpb_PutResponse__Output>
    RangeRequest: MessageTypeDefinition<_etcdserverpb_RangeRequest, _etcdserverpb_RangeRequest__Output>
    RangeResponse: MessageTypeDefinition<_etcdserverpb_RangeResponse, _etcdserverpb_RangeResponse__Output>
    RequestOp: MessageTypeDefinition<_etcdserverpb_RequestOp, _etcdserverpb_RequestOp__Output>
    ResponseHeader: MessageTypeDefinition<_etcdserverpb_ResponseHeader, _etcdserverpb_ResponseHeader__Output>
    ResponseOp: MessageTypeDefinition<_etcdserverpb_ResponseOp, _etcdserverpb_ResponseOp__Output>
    SnapshotRequest: MessageTypeDefinition<_etcdserverpb_SnapshotRequest, _etcdserverpb_SnapshotRequest__Output>
    SnapshotResponse: MessageTypeDefinition<_etcdserverpb_SnapshotResponse, _etcdserverpb_SnapshotResponse__Output>
    StatusRequest: MessageTypeDefinition<_etcdserverpb_StatusRequest, _etcdserverpb_StatusRequest__Output>
    StatusResponse: MessageTypeDefinition<_etcdserverpb_StatusResponse, _etcdserverpb_StatusResponse__Output>
    TxnRequest: MessageTypeDefinition<_etcdserverpb_TxnRequest, _etcdserverpb_TxnRequest__Output>
    TxnResponse: MessageTypeDefinition<_etcdserverpb_TxnResponse, _etcdserverpb_TxnResponse__Output>
    Watch: SubtypeConstructor<typeof grpc.Client, _etcdserverpb_WatchClient> & { service: _etcdserverpb_WatchDefinition }
    WatchCancelRequest: MessageTypeDefinition<_etcdserverpb_WatchCancelRequest, _etcdserverpb_WatchCancelRequest__Output>
    WatchCreateRequest: MessageTypeDefinition<_etcdserverpb_WatchCreateRequest, _etcdserverpb_WatchCreateRequest__Output>
    WatchProgressRequest: MessageTypeDefinition<_etcdserverpb_WatchProgressRequest, _etcdserverpb_WatchProgressRequest__Output>
    WatchRequest: MessageTypeDefinition<_etcdserverpb_WatchRequest, _etcdserverpb_WatchRequest__Output>
    WatchResponse: MessageTypeDefinition<_etcdserverpb_WatchResponse, _etcdserverpb_WatchResponse__Output>
  }
  mvccpb: {
    Event: MessageTypeDefinition<_mvccpb_Event, _mvccpb_Event__Output>
    KeyValue: MessageTypeDefinition<_mvccpb_KeyValue, _mvccpb_KeyValue__Output>
  }
  v3electionpb: {
    CampaignRequest: MessageTypeDefinition<_v3electionpb_CampaignRequest, _v3electionpb_CampaignRequest__Output>
    CampaignResponse: MessageTypeDefinition<_v3electionpb_CampaignResponse, _v3electionpb_CampaignResponse__Output>
    Election: SubtypeConstructor<typeof grpc.Client, _v3electionpb_ElectionClient> & { service: _v3electionpb_ElectionDefinition }
    LeaderKey: MessageTypeDefinition<_v3electionpb_LeaderKey, _v3electionpb_LeaderKey__Output>
    LeaderRequest: MessageTypeDefinition<_v3electionpb_LeaderRequest, _v3electionpb_LeaderRequest__Output>
    LeaderResponse: MessageTypeDefinition<_v3electionpb_LeaderResponse, _v3electionpb_LeaderResponse__Output>
    ProclaimRequest: MessageTypeDefinition<_v3electionpb_ProclaimRequest, _v3electionpb_ProclaimRequest__Output>
    ProclaimResponse: MessageTypeDefinition<_v3electionpb_ProclaimResponse, _v3electionpb_ProclaimResponse__Output>
    ResignRequest: MessageTypeDefinition<_v3electionpb_ResignRequest, _v3electionpb_ResignRequest__Output>
    ResignResponse: MessageTypeDefinition<_v3electionpb_ResignResponse, _v3electionpb_ResignResponse__Output>
  }
}

