import { build } from 'esbuild'
import { pageConfig } from './page-config.ts'

/**
 * Bundles the inspector page's script (`page/inspector.ts`, a browser module) into
 * one classic script, with `pageConfig` written into it as data: what `npm run build` puts into
 * the package (esbuild.config.ts), and what a server running from sources serves
 * (./script.ts). Node-only tooling: it needs esbuild, a devDependency, and nothing else loads it
 * (the build drops the branch of ./script.ts that does).
 */
export async function bundleInspectorScript(): Promise<string> {
  const { outputFiles } = await build({
    entryPoints: [`${import.meta.dirname}/page/inspector.ts`],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    define: { INSPECTOR_CONFIG: JSON.stringify(pageConfig) },
    legalComments: 'none',
    logLevel: 'silent',
  })
  const [script] = outputFiles
  if (!script) throw new Error('esbuild wrote no inspector script.')
  return script.text
}
