/**
 * The text `npm run build` bundles from `page/inspector.ts` and defines here (esbuild.config.ts),
 * so that the package serves it as built; it is no global when running from sources.
 */
declare const BUILT_INSPECTOR_SCRIPT: string | undefined

let script: Promise<string> | undefined

/**
 * The inspector page's script: as built, or bundled from sources on first request (by esbuild, a
 * devDependency, which the built package never loads).
 */
export function inspectorScript(): Promise<string> {
  script ??=
    typeof BUILT_INSPECTOR_SCRIPT === 'string'
      ? Promise.resolve(BUILT_INSPECTOR_SCRIPT)
      : import('./bundle.ts').then(({ bundleInspectorScript }) => bundleInspectorScript())
  return script
}
