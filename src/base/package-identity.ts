/**
 * The version in package.json, which `npm run build` defines here (esbuild.config.ts) for the
 * library and the bin; it is no global when running from sources.
 */
declare const BUILT_PACKAGE_VERSION: string | undefined

/** The package's name: what the health answer and the bin's `--version` say the mock is. */
export const packageName = 'identify-api-mock'

/**
 * The package's version, as built; from sources, read from the repository's package.json (in Node,
 * which runs the sources; elsewhere `unknown`).
 *
 * @example packageVersion // '0.1.0'
 */
export const packageVersion: string =
  typeof BUILT_PACKAGE_VERSION === 'string' ? BUILT_PACKAGE_VERSION : versionOfSources()

function versionOfSources(): string {
  const fs = globalThis.process?.getBuiltinModule?.('node:fs')
  if (!fs) return 'unknown'
  const manifest = JSON.parse(
    fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
  )
  return String(manifest.version)
}
