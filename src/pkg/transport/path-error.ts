// Go's *os.PathError text, "<op> <path>: <reason>", for a failed file operation: etcd reports unreadable
// TLS files this way ("open ca.pem: no such file or directory"). libuv's reasons are the C library's, as
// Go's are, and both are lower case.

/** Node's fs error as Go's PathError message for `op` on `path`. */
export function pathError(op: string, path: string, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err)
  // Node: "ENOENT: no such file or directory, open 'x'"; the reason sits between the code and the comma.
  const reason = /^[A-Z0-9_]+: ([^,]+)(?:,|$)/.exec(message)?.[1] ?? message
  return new Error(`${op} ${path}: ${reason}`, { cause: err })
}
