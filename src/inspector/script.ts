/**
 * The text `npm run build` bundles from `page/inspector.ts` and defines here (esbuild.config.ts),
 * so that the package serves it as built; it is no global when running from sources.
 */
declare const BUILT_INSPECTOR_SCRIPT: string | undefined

let script: Promise<string> | undefined

/**
 * The inspector page's script: as built, or else bundled on first request, by the Node server
 * that serves the control routes from sources (esbuild is a devDependency; the build drops this
 * branch, so the package never loads it).
 */
export function inspectorScript(): Promise<string> {
  script ??=
    typeof BUILT_INSPECTOR_SCRIPT === 'string'
      ? Promise.resolve(BUILT_INSPECTOR_SCRIPT)
      : import('./bundle.ts').then((bundler) => bundler.bundleInspectorScript())
  return script
}
