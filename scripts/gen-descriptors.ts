// Writes src/grpc/precompiled-protos.ts: what proto-loader's loadSync() gives for the served .proto files
// (and for the reflection service's own, as @grpc/reflection loads them), as data, so that a start parses
// none of them (src/grpc/precompiled.ts rebuilds the definitions). Run by `npm run gen:descriptors` after a
// change under proto/; test/unit/grpc/precompiled.test.ts fails while the committed file is out of date.
//
//   node build/scripts/gen-descriptors.js [--check]
import { writeFileSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import * as protoLoader from '@grpc/proto-loader'
import type protobuf from 'protobufjs'
import { LOADER_OPTIONS, PROTO_DIR, PROTO_FILES } from '../src/grpc/proto-files.js'
import { REFLECTION_LOADER_OPTIONS, reflectionProtoFile } from '../src/grpc/reflection-protos.js'
import type { PrecompiledEntry, PrecompiledMethod, PrecompiledPackage } from '../src/grpc/precompiled.js'

const requireCjs = createRequire(import.meta.url)

/** The generated module, relative to the repository. */
export const OUTPUT = 'src/grpc/precompiled-protos.ts'

/** proto-loader's own parse (its util.js): the root its loadSync() builds the definition from. */
function loadRoot(files: string | readonly string[], options: protoLoader.Options): protobuf.Root {
  const util = requireCjs('@grpc/proto-loader/build/src/util.js') as {
    loadProtosWithOptionsSync(f: string | string[], o: protoLoader.Options): protobuf.Root
  }
  return util.loadProtosWithOptionsSync(typeof files === 'string' ? files : [...files], options)
}

function isService(v: protoLoader.AnyDefinition): v is protoLoader.ServiceDefinition {
  return !('format' in v) || typeof v.format !== 'string'
}

/** loadSync(files, options) as data; fails if the data would not rebuild to the same definition. */
export function precompile(files: string | readonly string[], options: protoLoader.Options): PrecompiledPackage {
  const def = protoLoader.loadSync(typeof files === 'string' ? files : [...files], options)
  const root = loadRoot(files, options)
  let shared: readonly Buffer[] | undefined
  const entries: PrecompiledEntry[] = []
  for (const [name, d] of Object.entries(def)) {
    if (isService(d)) {
      const service = root.lookupService(name)
      const methods: PrecompiledMethod[] = []
      for (const [methodName, m] of Object.entries(d)) {
        const pm = service.methods[methodName]
        if (pm === undefined) throw new Error(`${name}.${methodName}: not in the protobufjs root`)
        pm.resolve()
        const req = pm.resolvedRequestType
        const res = pm.resolvedResponseType
        if (req === null || res === null) throw new Error(`${name}.${methodName}: unresolved types`)
        const requestType = req.fullName.replace(/^\./, '')
        const responseType = res.fullName.replace(/^\./, '')
        // The precompiled definition reuses the message entries for a method's types.
        for (const [t, md] of [[requestType, m.requestType], [responseType, m.responseType]] as const) {
          const entry = def[t]
          if (entry === undefined || isService(entry) || !isDeepStrictEqual(entry.type, md.type)) throw new Error(`${name}.${methodName}: ${t} is not an entry of its own`)
        }
        methods.push({
          name: methodName,
          path: m.path,
          requestStream: m.requestStream,
          responseStream: m.responseStream,
          originalName: m.originalName ?? '',
          requestType,
          responseType,
          options: m.options,
        })
      }
      entries.push({ kind: 'service', name, methods })
    } else {
      if (shared !== undefined && shared !== d.fileDescriptorProtos) throw new Error(`${name}: file descriptors not shared`)
      shared = d.fileDescriptorProtos
      const kind = d.format === 'Protocol Buffer 3 EnumDescriptorProto' ? 'enum' : 'message'
      entries.push({ kind, name, type: d.type })
    }
  }
  const pkg: PrecompiledPackage = {
    files: (shared ?? []).map((b) => b.toString('base64')),
    root: root.toJSON(),
    entries,
  }
  // The entries go through JSON and must come back the same (the root, protobufjs's own JSON, has
  // prototype-less maps: the test checks the codecs built from it).
  const back = JSON.parse(JSON.stringify(pkg.entries)) as unknown
  if (!isDeepStrictEqual(back, pkg.entries)) throw new Error(`precompiled protos: not plain JSON data: ${firstDifference(back, pkg.entries)}`)
  return pkg
}

/** Where two values first differ (for the error above). */
function firstDifference(a: unknown, b: unknown, path = ''): string {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return `${path}: ${String(a)} vs ${String(b)}`
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  for (const k of keys) {
    const x = (a as Record<string, unknown>)[k]
    const y = (b as Record<string, unknown>)[k]
    if (!isDeepStrictEqual(x, y)) return firstDifference(x, y, `${path}.${k}`)
  }
  return `${path}: prototypes differ`
}

function constant(doc: string, name: string, pkg: PrecompiledPackage): string {
  // A JSON text in a string literal: V8 parses JSON.parse('...') faster than the same object literal.
  return `/** ${doc} */\nexport const ${name}: PrecompiledPackage = JSON.parse(${JSON.stringify(JSON.stringify(pkg))}) as PrecompiledPackage\n`
}

/** The text of the generated module. */
export function precompiledSource(): string {
  return [
    '// Generated by `npm run gen:descriptors` (scripts/gen-descriptors.ts); do not edit. What proto-loader\'s',
    '// loadSync() gives for these .proto files, as data that src/grpc/precompiled.ts rebuilds the definitions from.',
    "import type { PrecompiledPackage } from './precompiled.js'",
    '',
    constant(`proto/: ${PROTO_FILES.join(', ')}, with LOADER_OPTIONS (proto-files.ts).`, 'ETCD_PROTOS', precompile(PROTO_FILES, LOADER_OPTIONS)),
    constant('grpc.reflection.v1 as @grpc/reflection loads it to serve it (REFLECTION_LOADER_OPTIONS).', 'REFLECTION_V1_PROTOS',
      precompile(reflectionProtoFile('v1'), REFLECTION_LOADER_OPTIONS)),
    constant('grpc.reflection.v1alpha, likewise.', 'REFLECTION_V1ALPHA_PROTOS', precompile(reflectionProtoFile('v1alpha'), REFLECTION_LOADER_OPTIONS)),
  ].join('\n')
}

/** The repository: the parent of proto/. */
export const REPO_DIR = dirname(PROTO_DIR)

if (process.argv[1] !== undefined && import.meta.url === `file://${process.argv[1]}`) {
  const out = join(REPO_DIR, OUTPUT)
  const text = precompiledSource()
  if (process.argv.includes('--check')) {
    if (readFileSync(out, 'utf8') !== text) {
      process.stderr.write(`${OUTPUT} is out of date with proto/: run npm run gen:descriptors\n`)
      process.exitCode = 1
    }
  } else {
    writeFileSync(out, text)
  }
}
