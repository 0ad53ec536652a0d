// Imported first by property tests: turns on the costly verify() invariants before src/ modules load
// (src/pkg/verify.ts reads the variable once, at import).
process.env['ETCDLITE_VERIFY'] ??= '1'
export {}
