// The precompiled protos (src/grpc/precompiled-protos.ts) against what they stand for: the committed module
// is what `npm run gen:descriptors` writes from proto/ now, and each package definition rebuilt from it is
// loadSync()'s of the .proto files: the same entries in the same order, the same descriptor objects and file
// descriptors, the same method attributes, and codecs that write the same bytes and read the same objects for
// a populated message of every type, an empty one and a refused array.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import * as protoLoader from '@grpc/proto-loader'
import protobuf from 'protobufjs'
import { OUTPUT, REPO_DIR, precompiledSource } from '../../../scripts/gen-descriptors.js'
import { packageDefinitionOf, type PrecompiledPackage } from '../../../src/grpc/precompiled.js'
import { ETCD_PROTOS, REFLECTION_V1_PROTOS, REFLECTION_V1ALPHA_PROTOS } from '../../../src/grpc/precompiled-protos.js'
import { LOADER_OPTIONS, PROTO_FILES } from '../../../src/grpc/proto-files.js'
import { REFLECTION_LOADER_OPTIONS, reflectionProtoFile } from '../../../src/grpc/reflection-protos.js'

const requireCjs = createRequire(import.meta.url)
const loaderUtil = requireCjs('@grpc/proto-loader/build/src/util.js') as {
  loadProtosWithOptionsSync(f: string | string[], o: protoLoader.Options): protobuf.Root
}

interface Case {
  readonly name: string
  readonly pkg: PrecompiledPackage
  readonly files: string | string[]
  readonly options: protoLoader.Options
}

const cases: readonly Case[] = [
  { name: 'etcd protos', pkg: ETCD_PROTOS, files: [...PROTO_FILES], options: LOADER_OPTIONS },
  { name: 'reflection v1', pkg: REFLECTION_V1_PROTOS, files: reflectionProtoFile('v1'), options: REFLECTION_LOADER_OPTIONS },
  { name: 'reflection v1alpha', pkg: REFLECTION_V1ALPHA_PROTOS, files: reflectionProtoFile('v1alpha'), options: REFLECTION_LOADER_OPTIONS },
]

const isService = (d: protoLoader.AnyDefinition): d is protoLoader.ServiceDefinition => !('format' in d) || typeof d.format !== 'string'

/** A value for every field (repeated ones twice, nested messages to `depth`), none of them a default. */
function populated(type: protobuf.Type, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const f of type.fieldsArray) {
    f.resolve()
    let v: unknown
    if (f.resolvedType instanceof protobuf.Type) {
      if (depth === 0) continue
      v = populated(f.resolvedType, depth - 1)
    } else if (f.resolvedType instanceof protobuf.Enum) {
      const names = Object.keys(f.resolvedType.values)
      v = names[names.length - 1]
    } else {
      const scalars: Record<string, unknown> = {
        double: 1.5, float: 2.5, int32: -7, uint32: 7, sint32: -9, fixed32: 11, sfixed32: -11, bool: true, string: 'é/x',
        int64: '-1234567890123', uint64: '18446744073709551615', sint64: '-98765432109', fixed64: '42', sfixed64: '-42',
        bytes: Buffer.from([0, 1, 255]),
      }
      if (!(f.type in scalars)) throw new Error(`${type.fullName}.${f.name}: no sample for ${f.type}`)
      v = scalars[f.type]
    }
    out[f.name] = f.repeated ? [v, v] : v
  }
  return out
}

/** Run fn, giving its result or the message it threw. */
function outcome(fn: () => unknown): unknown {
  try {
    return { ok: fn() }
  } catch (err) {
    return { threw: err instanceof Error ? err.message : String(err) }
  }
}

describe('precompiled protos', () => {
  it(`${OUTPUT} is up to date with proto/ (npm run gen:descriptors)`, () => {
    assert.equal(readFileSync(join(REPO_DIR, OUTPUT), 'utf8'), precompiledSource())
  })

  it("REFLECTION_LOADER_OPTIONS are @grpc/reflection's own", () => {
    const { PROTO_LOADER_OPTS } = requireCjs('@grpc/reflection/build/src/implementations/common/constants.js') as { PROTO_LOADER_OPTS: protoLoader.Options }
    assert.deepEqual(REFLECTION_LOADER_OPTIONS, PROTO_LOADER_OPTS)
  })

  for (const c of cases) {
    describe(c.name, () => {
      const want = protoLoader.loadSync(c.files, c.options)
      const got = packageDefinitionOf(c.pkg, c.options)
      const root = loaderUtil.loadProtosWithOptionsSync(c.files, c.options)

      it('has the same entries in the same order', () => {
        assert.deepEqual(Object.keys(got), Object.keys(want))
      })

      it('has the same descriptors, file descriptors and method attributes', () => {
        for (const [name, w] of Object.entries(want)) {
          const g = got[name]
          assert.ok(g !== undefined, name)
          if (isService(w)) {
            assert.ok(isService(g), name)
            assert.deepEqual(Object.keys(g), Object.keys(w), name)
            for (const [m, wm] of Object.entries(w)) {
              const gm: protoLoader.MethodDefinition<object, object> | undefined = g[m]
              assert.ok(gm !== undefined, `${name}.${m}`)
              const attrs = (d: protoLoader.MethodDefinition<object, object>): unknown => ({
                path: d.path, requestStream: d.requestStream, responseStream: d.responseStream, originalName: d.originalName, options: d.options,
                requestType: { format: d.requestType.format, type: d.requestType.type, files: d.requestType.fileDescriptorProtos },
                responseType: { format: d.responseType.format, type: d.responseType.type, files: d.responseType.fileDescriptorProtos },
              })
              assert.deepStrictEqual(attrs(gm), attrs(wm), `${name}.${m}`)
            }
          } else {
            assert.ok(!isService(g), name)
            assert.deepStrictEqual({ format: g.format, type: g.type, files: g.fileDescriptorProtos }, { format: w.format, type: w.type, files: w.fileDescriptorProtos }, name)
          }
        }
      })

      it('has codecs that write and read as loadSync()\'s', () => {
        let checked = 0
        for (const [name, w] of Object.entries(want)) {
          if (isService(w) || w.format !== 'Protocol Buffer 3 DescriptorProto') continue
          const g = got[name] as protoLoader.MessageTypeDefinition<object, object>
          const sample = populated(root.lookupType(name), 3)
          for (const input of [sample, {}]) {
            const bytes = w.serialize(input)
            assert.deepStrictEqual(g.serialize(input), bytes, `${name} serialize`)
            assert.deepStrictEqual(outcome(() => g.deserialize(bytes)), outcome(() => w.deserialize(bytes)), `${name} deserialize`)
          }
          assert.deepStrictEqual(outcome(() => g.serialize([])), outcome(() => w.serialize([])), `${name} array`)
          checked++
        }
        assert.ok(checked > 0)
        // A method's (de)serializers are its types'.
        for (const [name, w] of Object.entries(want)) {
          if (!isService(w)) continue
          const g = got[name] as protoLoader.ServiceDefinition
          for (const [m, wm] of Object.entries(w)) {
            const gm = g[m]
            assert.ok(gm !== undefined)
            const req = populated(root.lookupType(pathType(root, name, m, 'request')), 2)
            assert.deepStrictEqual(gm.requestSerialize(req), wm.requestSerialize(req), `${name}.${m} request`)
            const bytes = wm.requestSerialize(req)
            assert.deepStrictEqual(gm.requestDeserialize(bytes), wm.requestDeserialize(bytes), `${name}.${m} request`)
            const res = populated(root.lookupType(pathType(root, name, m, 'response')), 2)
            const rb = wm.responseSerialize(res)
            assert.deepStrictEqual(gm.responseSerialize(res), rb, `${name}.${m} response`)
            assert.deepStrictEqual(gm.responseDeserialize(rb), wm.responseDeserialize(rb), `${name}.${m} response`)
          }
        }
      })
    })
  }
})

/** The fully qualified request or response type of a method. */
function pathType(root: protobuf.Root, service: string, method: string, which: 'request' | 'response'): string {
  const m = root.lookupService(service).methods[method]
  if (m === undefined) throw new Error(`${service}.${method}: no such method`)
  m.resolve()
  const t = which === 'request' ? m.resolvedRequestType : m.resolvedResponseType
  if (t === null) throw new Error(`${service}.${method}: unresolved`)
  return t.fullName
}
