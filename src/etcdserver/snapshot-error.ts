/** Why a snapshot cannot be streamed or restored. */
export class SnapshotError extends Error {
  override name = 'SnapshotError'
}
