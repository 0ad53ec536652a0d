// Original file: proto/etcdserverpb/rpc.proto

import type { ResponseHeader as _etcdserverpb_ResponseHeader, ResponseHeader__Output as _etcdserverpb_ResponseHeader__Output } from '../etcdserverpb/ResponseHeader.js';
import type { Event as _mvccpb_Event, Event__Output as _mvccpb_Event__Output } from '../mvccpb/Event.js';
import type { Long } from '@grpc/proto-loader';

export interface WatchResponse {
  'header'?: (_etcdserverpb_ResponseHeader | null);
  'watch_id'?: (number | string | Long);
  'created'?: (boolean);
  'canceled'?: (boolean);
  'compact_revision'?: (number | string | Long);
  'cancel_reason'?: (string);
  'fragment'?: (boolean);
  'events'?: (_mvccpb_Event)[];
}

export interface WatchResponse__Output {
  'header': (_etcdserverpb_ResponseHeader__Output | null);
  'watch_id': (string);
  'created': (boolean);
  'canceled': (boolean);
  'compact_revision': (string);
  'cancel_reason': (string);
  'fragment': (boolean);
  'events': (_mvccpb_Event__Output)[];
}
