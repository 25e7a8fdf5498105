/**
 * Bundles the library's entry points and the `identify-api-mock` bin (run by `npm run build`,
 * after `tsc`, which writes only the declarations).
 *
 * The library: every entry of package.json's `exports`, from the source its
 * `@identify-api-mock/source` condition names to the file its `default` names, in one build
 * with shared chunks (so that the entries share one `ApiError`, one `MockCore`). Compiled as
 * separate modules, importing the package loaded about 1,100 files, almost all `es-toolkit`
 * barrels that `@msw/data` imports whole; a test file paid that at every import. The peers (msw,
 * vitest) and zod (whose schemas the package exports, for consumers to compose with their own)
 * stay imports; the rest is tree-shaken into the bundle. `platform: 'neutral'`: the same files
 * serve a browser page (through the consumer's bundler) and Node.
 *
 * Start-up is what a mock server is waited for by: compiled as separate modules, the CLI loads
 * about 400 files (`es-toolkit` alone is hundreds), which costs more than everything else it does
 * before its first answer. So the bin is one bundle, `dist/src/server/cli-bundle.js`, loaded by a
 * small launcher at the bin's path that first turns on Node's module compile cache: from the
 * second start on, V8 reads the bundle's compiled code instead of compiling it again.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises'
import { builtinModules } from 'node:module'
import { dirname } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build, type Plugin } from 'esbuild'
import { bundleInspectorScript } from './src/inspector/bundle.ts'

// `BIN_OUT_DIR` puts the bin elsewhere (the test of the bundled bin builds one of its own).
const outDir = process.env.BIN_OUT_DIR
  ? pathToFileURL(`${process.env.BIN_OUT_DIR}/`)
  : new URL('./dist/src/server/', import.meta.url)

/**
 * Node's built-ins, `require`d rather than imported: importing one as an ES module builds its
 * namespace, which reads every export, and `node:http`'s include getters that load undici: 45 ms,
 * as much as a bare `node:http` server takes to start.
 */
const requireBuiltins: Plugin = {
  name: 'require-node-builtins',
  setup(build) {
    const names = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]))
    build.onResolve({ filter: /^[a-z_:/]+$/ }, ({ path }) =>
      names.has(path) ? { path, namespace: 'node-builtin' } : undefined,
    )
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, ({ path }) => ({
      contents: `module.exports = __binRequire(${JSON.stringify(path)})`,
      loader: 'js',
    }))
  },
}

/**
 * zod's namespace `z` carries every locale of its error messages (`z.locales`, 360 KB, half of
 * zod in the bundle), and a namespace object is not tree-shaken. The mock answers with its own
 * messages and its bundled zod is not the consumer's, so its `z.locales` holds English only (the
 * default zod registers by itself).
 */
const zodEnglishOnly: Plugin = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, ({ importer, path }) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(importer)
        ? { path: new URL(path, `file://${importer}`).pathname, namespace: 'zod-locales' }
        : undefined,
    )
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, ({ path }) => ({
      contents: "export { default as en } from './en.js'",
      resolveDir: dirname(path),
      loader: 'js',
    }))
  },
}

/**
 * Faker, in the library, runs on the first call that needs it rather than when the package is
 * imported: `fixtures/english-faker.ts` becomes a `require` of Faker's English entry, which
 * esbuild bundles as a module evaluated when first required. V8 then only pre-parses Faker's
 * code at import (about 480 KB, its English tables included), and a mock started from the
 * prebuilt default data never runs it.
 */
const lazyFaker: Plugin = {
  name: 'lazy-faker',
  setup(build) {
    build.onLoad({ filter: /[\\/]fixtures[\\/]english-faker\.ts$/ }, ({ path }) => ({
      contents: [
        'let faker',
        "export const englishFaker = () => (faker ??= require('@faker-js/faker/locale/en').faker)",
      ].join('\n'),
      resolveDir: dirname(path),
      loader: 'js',
    }))
  },
}

const root = new URL('./', import.meta.url)
const { exports, peerDependencies, version } = JSON.parse(
  await readFile(new URL('package.json', root), 'utf8'),
) as {
  exports: Record<string, Record<string, string>>
  peerDependencies: Record<string, string>
  version: string
}

/**
 * The inspector page's script, bundled once and written into the library and the bin as text
 * (src/inspector/script.ts), so that the package serves it without esbuild; and the package's
 * version (src/base/package-identity.ts), which the health answer and `--version` say.
 */
const define = {
  BUILT_INSPECTOR_SCRIPT: JSON.stringify(await bundleInspectorScript()),
  BUILT_PACKAGE_VERSION: JSON.stringify(version),
}

// The bin's test builds only a bin of its own.
if (!process.env.BIN_OUT_DIR) {
  const entries = Object.values(exports).flatMap((conditions) => {
    const [source, out] = [conditions['@identify-api-mock/source'], conditions.default]
    return source && out
      ? [{ in: source, out: out.replace(/^\.\/dist\//, '').replace(/\.js$/, '') }]
      : []
  })
  // The default data, built once here and written into the library as JSON (fixtures/seed.ts):
  // a test file's `createMockApi()` parses it instead of drawing it with Faker.
  // Its records must be their schemas' output as they are: a mock loads them without a parse.
  const { defaultDatasetText } = await import('./fixtures/seed.ts')
  const { isParsedState } = await import('./src/model/database.ts')
  if (!isParsedState(JSON.parse(defaultDatasetText()).state)) {
    throw new Error('The default data is not its schemas’ output: a mock could not load it as is')
  }
  await build({
    absWorkingDir: new URL('.', root).pathname,
    entryPoints: entries,
    outdir: 'dist',
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    format: 'esm',
    target: 'es2023',
    // commander is CommonJS, which an ES bundle cannot `require` (it needs `node:events`): the
    // Testcontainers entry, which reads the serve flags' table, imports it as installed.
    external: [...Object.keys(peerDependencies), 'commander', 'node:*'],
    plugins: [zodEnglishOnly, lazyFaker],
    define: { ...define, BUILT_DEFAULT_DATASET: JSON.stringify(defaultDatasetText()) },
    legalComments: 'eof',
    logLevel: 'warning',
  })
}

await build({
  entryPoints: [new URL('./src/server/cli.ts', import.meta.url).pathname],
  outfile: new URL('cli-bundle.js', outDir).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  minify: true,
  keepNames: true,
  legalComments: 'eof',
  logLevel: 'warning',
  plugins: [requireBuiltins],
  // `@msw/data`'s event emitter (rettime) declares `class TypedEvent extends MessageEvent` when
  // loaded. Node's `MessageEvent` comes from undici, and touching it loads all of undici (45 ms
  // again). The emitter only needs an `Event` with `data` (it tracks `preventDefault` itself),
  // which is what the bin gets instead.
  define: { ...define, MessageEvent: '__BinMessageEvent' },
  banner: {
    js: [
      "import { createRequire as __createRequire } from 'node:module'",
      'const __binRequire = __createRequire(import.meta.url)',
      'const require = __binRequire',
      'class __BinMessageEvent extends Event { constructor(type, init = {}) { super(type, init); this.data = init.data } }',
    ].join(';'),
  },
})

const bin = new URL('cli.js', outDir)
await writeFile(
  bin,
  `#!/usr/bin/env node
// The bin: turns on Node's compile cache, then runs the bundled CLI (see esbuild.config.ts).
import module from 'node:module'

module.enableCompileCache?.()
await import('./cli-bundle.js')
`,
)
await chmod(bin, 0o755)
