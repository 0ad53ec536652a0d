// Where etcd serves Go's pprof handlers (debugutil.HTTPPrefixPProf); apart from pprof.ts so that routing
// to it loads nothing else.
export const HTTP_PREFIX_PPROF = '/debug/pprof'
