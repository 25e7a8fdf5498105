/**
 * The oldest Node the package runs on: `engines` in package.json says the same (a test holds them
 * together). Older ones lack what msw and the mock use (`Promise.withResolvers` first).
 *
 * @example minimumNode // '22.12'
 */
export const minimumNode = '22.12'

/**
 * Why this runtime cannot run the mock, in words for one line, or `undefined`: only a Node older
 * than `minimumNode` is refused (a browser, Deno or Bun has no Node version to judge).
 *
 * @example unsupportedNode('20.20.2') // 'needs Node 22.12 or newer; this is Node 20.20.2'
 */
export function unsupportedNode(
  version = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node,
): string | undefined {
  if (version === undefined) return undefined
  const [major = 0, minor = 0] = version.split('.').map(Number)
  const [needMajor = 0, needMinor = 0] = minimumNode.split('.').map(Number)
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined
  return `needs Node ${minimumNode} or newer; this is Node ${version}`
}
