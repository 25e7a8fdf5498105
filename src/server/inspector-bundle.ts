import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { pageConfig } from '../inspector/page-config.ts'

/**
 * Bundles the inspector page's script (`src/inspector/page/inspector.ts`, a browser module) into
 * one classic script, with `pageConfig` written into it as data: what `npm run build` puts into
 * the package (esbuild.config.ts), and what a server running from sources serves
 * (src/inspector/script.ts). It needs esbuild, a devDependency: nothing else loads it.
 */
export async function bundleInspectorScript(): Promise<string> {
  const { outputFiles } = await build({
    entryPoints: [fileURLToPath(new URL('../inspector/page/inspector.ts', import.meta.url))],
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
