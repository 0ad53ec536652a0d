// V8 flags etcdlite's process runs with: in the CLI's shebang (`env -S`), in `npm start`, and wherever the
// bench and the tests spawn the CLI with node directly. test/unit/etcdmain/node-flags.test.ts keeps the three
// in step.

/**
 * A 32 MiB young generation (V8's default maximum is 16 MiB): every request allocates short-lived objects,
 * and restoring a large key index allocates objects that all survive. With the default, rebuilding the index
 * of 1M keys ran 122 scavenges (3.6 s of GC); with 32 MiB, 59 (0.5 s). The flag only has effect on the
 * command line: V8 sizes the young generation when the heap is set up, before any code runs.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32']
