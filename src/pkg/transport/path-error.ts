import { errorMessage } from '../as-error.js'
// Go's *os.PathError text, "<op> <path>: <reason>", for a failed file operation: etcd reports unreadable
// TLS files this way ("open ca.pem: no such file or directory"). The reasons are Go's (the C library's
// strerror, lower case); libuv words a few differently, so those are given by code.

/** Go's syscall.Errno text where libuv's differs or is absent. */
const GO_ERRNO_TEXT: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  EEXIST: 'file exists',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EMFILE: 'too many open files',
}

/** Node's fs error as Go's PathError message for `op` on `path`. */
export function pathError(op: string, path: string, err: unknown): Error {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? ''
  const message = errorMessage(err)
  // Node: "ENOENT: no such file or directory, open 'x'"; the reason sits between the code and the comma.
  const reason = GO_ERRNO_TEXT[code] ?? /^[A-Z0-9_]+: ([^,]+)(?:,|$)/.exec(message)?.[1] ?? message
  return new Error(`${op} ${path}: ${reason}`, { cause: err })
}

/** Go's error for os.ReadFile(path) failing with `err`: a directory opens, and then fails to read. */
export function readFileError(path: string, err: unknown): Error {
  return pathError((err as NodeJS.ErrnoException | undefined)?.code === 'EISDIR' ? 'read' : 'open', path, err)
}
