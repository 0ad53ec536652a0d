// Which tests of etcd 3.4.23's e2e suite etcdlite must pass, and which it need not, with the reason.
//
// MUST_PASS is every test that starts one member and passes on the real etcd 3.4.23 on this kind of machine
// (tests that start three members are refused by design: etcdlite serves one member), minus EXCLUDED.

/** Tests that need something etcdlite does not have yet, or will not have; each group says why. */
export const EXCLUDED: Readonly<Record<string, readonly string[]>> = {
  /** They add or update a member: etcdlite serves one member and refuses membership changes. */
  membership: [
    'TestCtlV3AuthMemberAdd', 'TestCtlV3AuthMemberUpdate', 'TestCtlV3MemberAdd', 'TestCtlV3MemberAddNoTLS',
    'TestCtlV3MemberAddClientTLS', 'TestCtlV3MemberAddClientAutoTLS', 'TestCtlV3MemberAddPeerTLS',
    'TestCtlV3MemberAddForLearner', 'TestCtlV3MemberUpdate', 'TestCtlV3MemberUpdateNoTLS',
    'TestCtlV3MemberUpdateClientTLS', 'TestCtlV3MemberUpdateClientAutoTLS', 'TestCtlV3MemberUpdatePeerTLS',
  ],
  /** They drive the JSON gateway (/v3/... over HTTP) with curl. */
  gateway: [
    'TestV3CurlCipherSuitesValid', 'TestV3CurlCipherSuitesMismatch', 'TestV3CurlLeaseGrantNoTLS',
    'TestV3CurlLeaseRevokeNoTLS', 'TestV3CurlLeaseLeasesNoTLS', 'TestV3CurlLeaseKeepAliveNoTLS',
    'TestV3Curl_MaxStreams_BelowLimit_NoTLS_Small', 'TestV3Curl_MaxStreams_BelowLimit_NoTLS_Medium',
    'TestV3Curl_MaxStreams_ReachLimit_NoTLS_Small', 'TestV3Curl_MaxStreams_ReachLimit_NoTLS_Medium',
    'TestV3Curl_MaxStreams_BelowLimit_TLS_Small', 'TestV3Curl_MaxStreams_BelowLimit_TLS_Medium',
    'TestV3Curl_MaxStreams_ReachLimit_TLS_Small', 'TestV3Curl_MaxStreams_ReachLimit_TLS_Medium',
    'TestV3CurlPutGetNoTLS', 'TestV3CurlPutGetAutoTLS', 'TestV3CurlPutGetAllTLS', 'TestV3CurlPutGetPeerTLS',
    'TestV3CurlPutGetClientTLS', 'TestV3CurlWatch', 'TestV3CurlTxn', 'TestV3CurlAuth',
    'TestV3CurlAuthClientTLSCertAuth', 'TestV3CurlCampaignNoTLS', 'TestV3CurlProclaimMissiongLeaderKeyNoTLS',
    'TestV3CurlResignMissiongLeaderKeyNoTLS',
  ],
  /** They read etcd's own data dir (WAL and snap files) with etcdctl backup / migrate. */
  'etcd data-dir format': [
    'TestCtlV2Backup', 'TestCtlV2BackupSnapshot', 'TestCtlV2BackupV3', 'TestCtlV2BackupV3Snapshot',
    'TestCtlV3Migrate',
  ],
}

export const MUST_PASS: readonly string[] = [
  'TestCtlV2Set', 'TestCtlV2SetClientTLS', 'TestCtlV2SetPeerTLS', 'TestCtlV2SetTLS', 'TestCtlV2Mk',
  'TestCtlV2MkTLS', 'TestCtlV2Ls', 'TestCtlV2LsTLS', 'TestCtlV2GetRoleUser', 'TestCtlV2UserListUsername',
  'TestCtlV2UserListRoot', 'TestCtlV2RoleList', 'TestCtlV2AuthWithCommonName', 'TestCtlV3Alarm',
  'TestCtlV3AuthCertCN', 'TestCtlV3AuthCertCNAndUsername', 'TestCtlV3AuthCertCNAndUsernameNoPassword',
  'TestCtlV3AuthCertCNWithWithConcurrentOperation', 'TestCtlV3AuthEnable', 'TestCtlV3AuthDisable',
  'TestCtlV3AuthWriteKey', 'TestCtlV3AuthRoleUpdate', 'TestCtlV3AuthUserDeleteDuringOps',
  'TestCtlV3AuthRoleRevokeDuringOps', 'TestCtlV3AuthTxn', 'TestCtlV3AuthTxnJWT', 'TestCtlV3AuthPrefixPerm',
  'TestCtlV3AuthRevokeWithDelete', 'TestCtlV3AuthInvalidMgmt', 'TestCtlV3AuthFromKeyPerm',
  'TestCtlV3AuthAndWatch', 'TestCtlV3AuthAndWatchJWT', 'TestCtlV3AuthLeaseTestKeepAlive',
  'TestCtlV3AuthLeaseTestTimeToLiveExpired', 'TestCtlV3AuthLeaseGrantLeases',
  'TestCtlV3AuthLeaseGrantLeasesJWT', 'TestCtlV3AuthLeaseRevoke', 'TestCtlV3AuthRoleGet',
  'TestCtlV3AuthUserGet', 'TestCtlV3AuthRoleList', 'TestCtlV3AuthDefrag', 'TestCtlV3AuthSnapshot',
  'TestCtlV3AuthSnapshotJWT', 'TestCtlV3Snapshot', 'TestCtlV3SnapshotCorrupt', 'TestCtlV3SnapshotStatusBeforeRestore',
  'TestCtlV3AuthJWTExpire', 'TestCtlV3AuthTestCacheReload', 'TestCtlV3Compact', 'TestCtlV3CompactPhysical',
  'TestCtlV3Defrag', 'TestCtlV3Elect', 'TestCtlV3Put', 'TestCtlV3PutNoTLS', 'TestCtlV3PutClientTLS',
  'TestCtlV3PutClientAutoTLS', 'TestCtlV3PutPeerTLS', 'TestCtlV3PutTimeout',
  'TestCtlV3PutClientTLSFlagByEnv', 'TestCtlV3PutIgnoreValue', 'TestCtlV3PutIgnoreLease', 'TestCtlV3Get',
  'TestCtlV3GetNoTLS', 'TestCtlV3GetClientTLS', 'TestCtlV3GetClientAutoTLS', 'TestCtlV3GetPeerTLS',
  'TestCtlV3GetTimeout', 'TestCtlV3GetFormat', 'TestCtlV3GetRev', 'TestCtlV3GetKeysOnly', 'TestCtlV3Del',
  'TestCtlV3DelNoTLS', 'TestCtlV3DelClientTLS', 'TestCtlV3DelPeerTLS', 'TestCtlV3DelTimeout',
  'TestCtlV3GetRevokedCRL', 'TestCtlV3LeaseGrantTimeToLive', 'TestCtlV3LeaseGrantTimeToLiveNoTLS',
  'TestCtlV3LeaseGrantTimeToLiveClientTLS', 'TestCtlV3LeaseGrantTimeToLiveClientAutoTLS',
  'TestCtlV3LeaseGrantTimeToLivePeerTLS', 'TestCtlV3LeaseGrantLeases', 'TestCtlV3LeaseGrantLeasesNoTLS',
  'TestCtlV3LeaseGrantLeasesClientTLS', 'TestCtlV3LeaseGrantLeasesClientAutoTLS',
  'TestCtlV3LeaseGrantLeasesPeerTLS', 'TestCtlV3LeaseTestTimeToLiveExpired',
  'TestCtlV3LeaseTestTimeToLiveExpiredNoTLS', 'TestCtlV3LeaseTestTimeToLiveExpiredClientTLS',
  'TestCtlV3LeaseTestTimeToLiveExpiredClientAutoTLS', 'TestCtlV3LeaseTestTimeToLiveExpiredPeerTLS',
  'TestCtlV3LeaseKeepAlive', 'TestCtlV3LeaseKeepAliveNoTLS', 'TestCtlV3LeaseKeepAliveClientTLS',
  'TestCtlV3LeaseKeepAliveClientAutoTLS', 'TestCtlV3LeaseKeepAlivePeerTLS', 'TestCtlV3LeaseKeepAliveOnce',
  'TestCtlV3LeaseKeepAliveOnceNoTLS', 'TestCtlV3LeaseKeepAliveOnceClientTLS',
  'TestCtlV3LeaseKeepAliveOnceClientAutoTLS', 'TestCtlV3LeaseKeepAliveOncePeerTLS', 'TestCtlV3LeaseRevoke',
  'TestCtlV3LeaseRevokeNoTLS', 'TestCtlV3LeaseRevokeClientTLS', 'TestCtlV3LeaseRevokeClientAutoTLS',
  'TestCtlV3LeaseRevokePeerTLS', 'TestCtlV3Lock', 'TestCtlV3MakeMirror',
  'TestCtlV3MakeMirrorModifyDestPrefix', 'TestCtlV3MakeMirrorNoDestPrefix', 'TestCtlV3MemberList',
  'TestCtlV3MemberListNoTLS', 'TestCtlV3MemberListClientTLS', 'TestCtlV3MemberListClientAutoTLS',
  'TestCtlV3MemberListPeerTLS', 'TestCtlV3RoleAdd', 'TestCtlV3RoleAddNoTLS', 'TestCtlV3RoleAddClientTLS',
  'TestCtlV3RoleAddPeerTLS', 'TestCtlV3RoleAddTimeout', 'TestCtlV3RoleGrant', 'TestCtlV3Version',
  'TestCtlV3DialWithHTTPScheme', 'TestCtlV3TxnInteractiveSuccess', 'TestCtlV3TxnInteractiveSuccessNoTLS',
  'TestCtlV3TxnInteractiveSuccessClientTLS', 'TestCtlV3TxnInteractiveSuccessPeerTLS',
  'TestCtlV3TxnInteractiveFail', 'TestCtlV3UserAdd', 'TestCtlV3UserAddNoTLS', 'TestCtlV3UserAddClientTLS',
  'TestCtlV3UserAddPeerTLS', 'TestCtlV3UserAddTimeout', 'TestCtlV3UserAddClientAutoTLS', 'TestCtlV3UserList',
  'TestCtlV3UserListNoTLS', 'TestCtlV3UserListClientTLS', 'TestCtlV3UserListPeerTLS',
  'TestCtlV3UserListClientAutoTLS', 'TestCtlV3UserDelete', 'TestCtlV3UserDeleteNoTLS',
  'TestCtlV3UserDeleteClientTLS', 'TestCtlV3UserDeletePeerTLS', 'TestCtlV3UserDeleteClientAutoTLS',
  'TestCtlV3UserPasswd', 'TestCtlV3UserPasswdNoTLS', 'TestCtlV3UserPasswdClientTLS',
  'TestCtlV3UserPasswdPeerTLS', 'TestCtlV3UserPasswdClientAutoTLS', 'TestCtlV3Watch', 'TestCtlV3WatchNoTLS',
  'TestCtlV3WatchClientTLS', 'TestCtlV3WatchPeerTLS', 'TestCtlV3WatchTimeout', 'TestCtlV3WatchInteractive',
  'TestCtlV3WatchInteractiveNoTLS', 'TestCtlV3WatchInteractiveClientTLS', 'TestCtlV3WatchInteractivePeerTLS',
  'TestEtcdUnixPeers', 'TestV3MetricsSecure', 'TestV3MetricsInsecure', 'TestV2CurlNoTLS',
  'TestV2CurlAutoTLS', 'TestV2CurlAllTLS', 'TestV2CurlPeerTLS', 'TestV2CurlClientTLS',
  'TestV2CurlClientBoth', 'TestV2CurlIssue5182',
]
