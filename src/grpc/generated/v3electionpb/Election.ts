// Original file: proto/v3electionpb/v3election.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CampaignRequest as _v3electionpb_CampaignRequest, CampaignRequest__Output as _v3electionpb_CampaignRequest__Output } from '../v3electionpb/CampaignRequest.js';
import type { CampaignResponse as _v3electionpb_CampaignResponse, CampaignResponse__Output as _v3electionpb_CampaignResponse__Output } from '../v3electionpb/CampaignResponse.js';
import type { LeaderRequest as _v3electionpb_LeaderRequest, LeaderRequest__Output as _v3electionpb_LeaderRequest__Output } from '../v3electionpb/LeaderRequest.js';
import type { LeaderResponse as _v3electionpb_LeaderResponse, LeaderResponse__Output as _v3electionpb_LeaderResponse__Output } from '../v3electionpb/LeaderResponse.js';
import type { ProclaimRequest as _v3electionpb_ProclaimRequest, ProclaimRequest__Output as _v3electionpb_ProclaimRequest__Output } from '../v3electionpb/ProclaimRequest.js';
import type { ProclaimResponse as _v3electionpb_ProclaimResponse, ProclaimResponse__Output as _v3electionpb_ProclaimResponse__Output } from '../v3electionpb/ProclaimResponse.js';
import type { ResignRequest as _v3electionpb_ResignRequest, ResignRequest__Output as _v3electionpb_ResignRequest__Output } from '../v3electionpb/ResignRequest.js';
import type { ResignResponse as _v3electionpb_ResignResponse, ResignResponse__Output as _v3electionpb_ResignResponse__Output } from '../v3electionpb/ResignResponse.js';

export interface ElectionClient extends grpc.Client {
  Campaign(argument: _v3electionpb_CampaignRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_CampaignResponse__Output>): grpc.ClientUnaryCall;
  Campaign(argument: _v3electionpb_CampaignRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_v3electionpb_CampaignResponse__Output>): grpc.ClientUnaryCall;
  Campaign(argument: _v3electionpb_CampaignRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_CampaignResponse__Output>): grpc.ClientUnaryCall;
  Campaign(argument: _v3electionpb_CampaignRequest, callback: grpc.requestCallback<_v3electionpb_CampaignResponse__Output>): grpc.ClientUnaryCall;
  campaign(argument: _v3electionpb_CampaignRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_CampaignResponse__Output>): grpc.ClientUnaryCall;
  campaign(argument: _v3electionpb_CampaignRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_v3electionpb_CampaignResponse__Output>): grpc.ClientUnaryCall;
  campaign(argument: _v3electionpb_CampaignRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_CampaignResponse__Output>): grpc.ClientUnaryCall;
  campaign(argument: _v3electionpb_CampaignRequest, callback: grpc.requestCallback<_v3electionpb_CampaignResponse__Output>): grpc.ClientUnaryCall;
  
  Leader(argument: _v3electionpb_LeaderRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_LeaderResponse__Output>): grpc.ClientUnaryCall;
  Leader(argument: _v3electionpb_LeaderRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_v3electionpb_LeaderResponse__Output>): grpc.ClientUnaryCall;
  Leader(argument: _v3electionpb_LeaderRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_LeaderResponse__Output>): grpc.ClientUnaryCall;
  Leader(argument: _v3electionpb_LeaderRequest, callback: grpc.requestCallback<_v3electionpb_LeaderResponse__Output>): grpc.ClientUnaryCall;
  leader(argument: _v3electionpb_LeaderRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_LeaderResponse__Output>): grpc.ClientUnaryCall;
  leader(argument: _v3electionpb_LeaderRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_v3electionpb_LeaderResponse__Output>): grpc.ClientUnaryCall;
  leader(argument: _v3electionpb_LeaderRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_LeaderResponse__Output>): grpc.ClientUnaryCall;
  leader(argument: _v3electionpb_LeaderRequest, callback: grpc.requestCallback<_v3electionpb_LeaderResponse__Output>): grpc.ClientUnaryCall;
  
  Observe(argument: _v3electionpb_LeaderRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_v3electionpb_LeaderResponse__Output>;
  Observe(argument: _v3electionpb_LeaderRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_v3electionpb_LeaderResponse__Output>;
  observe(argument: _v3electionpb_LeaderRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_v3electionpb_LeaderResponse__Output>;
  observe(argument: _v3electionpb_LeaderRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_v3electionpb_LeaderResponse__Output>;
  
  Proclaim(argument: _v3electionpb_ProclaimRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  Proclaim(argument: _v3electionpb_ProclaimRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_v3electionpb_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  Proclaim(argument: _v3electionpb_ProclaimRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  Proclaim(argument: _v3electionpb_ProclaimRequest, callback: grpc.requestCallback<_v3electionpb_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  proclaim(argument: _v3electionpb_ProclaimRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  proclaim(argument: _v3electionpb_ProclaimRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_v3electionpb_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  proclaim(argument: _v3electionpb_ProclaimRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  proclaim(argument: _v3electionpb_ProclaimRequest, callback: grpc.requestCallback<_v3electionpb_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  
  Resign(argument: _v3electionpb_ResignRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_ResignResponse__Output>): grpc.ClientUnaryCall;
  Resign(argument: _v3electionpb_ResignRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_v3electionpb_ResignResponse__Output>): grpc.ClientUnaryCall;
  Resign(argument: _v3electionpb_ResignRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_ResignResponse__Output>): grpc.ClientUnaryCall;
  Resign(argument: _v3electionpb_ResignRequest, callback: grpc.requestCallback<_v3electionpb_ResignResponse__Output>): grpc.ClientUnaryCall;
  resign(argument: _v3electionpb_ResignRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_ResignResponse__Output>): grpc.ClientUnaryCall;
  resign(argument: _v3electionpb_ResignRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_v3electionpb_ResignResponse__Output>): grpc.ClientUnaryCall;
  resign(argument: _v3electionpb_ResignRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_v3electionpb_ResignResponse__Output>): grpc.ClientUnaryCall;
  resign(argument: _v3electionpb_ResignRequest, callback: grpc.requestCallback<_v3electionpb_ResignResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface ElectionHandlers extends grpc.UntypedServiceImplementation {
  Campaign: grpc.handleUnaryCall<_v3electionpb_CampaignRequest__Output, _v3electionpb_CampaignResponse>;
  
  Leader: grpc.handleUnaryCall<_v3electionpb_LeaderRequest__Output, _v3electionpb_LeaderResponse>;
  
  Observe: grpc.handleServerStreamingCall<_v3electionpb_LeaderRequest__Output, _v3electionpb_LeaderResponse>;
  
  Proclaim: grpc.handleUnaryCall<_v3electionpb_ProclaimRequest__Output, _v3electionpb_ProclaimResponse>;
  
  Resign: grpc.handleUnaryCall<_v3electionpb_ResignRequest__Output, _v3electionpb_ResignResponse>;
  
}

export interface ElectionDefinition extends grpc.ServiceDefinition {
  Campaign: MethodDefinition<_v3electionpb_CampaignRequest, _v3electionpb_CampaignResponse, _v3electionpb_CampaignRequest__Output, _v3electionpb_CampaignResponse__Output>
  Leader: MethodDefinition<_v3electionpb_LeaderRequest, _v3electionpb_LeaderResponse, _v3electionpb_LeaderRequest__Output, _v3electionpb_LeaderResponse__Output>
  Observe: MethodDefinition<_v3electionpb_LeaderRequest, _v3electionpb_LeaderResponse, _v3electionpb_LeaderRequest__Output, _v3electionpb_LeaderResponse__Output>
  Proclaim: MethodDefinition<_v3electionpb_ProclaimRequest, _v3electionpb_ProclaimResponse, _v3electionpb_ProclaimRequest__Output, _v3electionpb_ProclaimResponse__Output>
  Resign: MethodDefinition<_v3electionpb_ResignRequest, _v3electionpb_ResignResponse, _v3electionpb_ResignRequest__Output, _v3electionpb_ResignResponse__Output>
}
