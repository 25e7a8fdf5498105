import { describe, it, vi } from 'vitest'
import { describeAnswerShapes, httpControls } from '../support/answer-shapes-suite.ts'
import { describeConformance } from '../support/conformance-suite.ts'
import { noContainers, startContainer } from '../support/container.ts'
import { overHttp, type WayInOptions } from '../support/way-in.ts'

/**
 * The conformance suite and the answer shapes' suite the standalone server passes, over HTTP
 * against the container image (`IDENTIFY_TEST_IMAGE`), each block's options given as `serve` flags
 * appended to `docker run IMAGE`.
 */

/** The flags for `options`; `undefined` when the CLI has none for them. */
function flagsFor(options: WayInOptions): string[] | undefined {
  const { strictUserGroups, authFailureStatus, organisations = [], now, ...rest } = options
  if (now !== undefined || Object.keys(rest).length > 0 || organisations.length > 1)
    return undefined
  const [org] = organisations
  if (org?.users !== undefined) return undefined
  return [
    ...(strictUserGroups ? ['--strict-user-groups'] : []),
    ...(authFailureStatus ? ['--auth-failure-status', String(authFailureStatus)] : []),
    ...(org
      ? ['--org', org.orgId, ...(org.apiKeys ?? []).flatMap((key) => ['--api-key', key])]
      : []),
  ]
}

// Starting a container takes seconds, more on a busy machine.
vi.setConfig({ hookTimeout: 60_000 })

if (noContainers) {
  describe.skip(`the container image: conformance (skipped: ${noContainers})`, () => {
    it('runs the conformance suite against a container', () => {})
  })
} else {
  describeConformance(
    'the container image over HTTP',
    async (options = {}) => {
      const container = await startContainer(flagsFor(options))
      return overHttp(container.url, container.credentials, async () => {
        await container.stop()
      })
    },
    (options) =>
      flagsFor(options) === undefined
        ? 'serve has one --org and no per-organisation user count'
        : undefined,
  )
  describeAnswerShapes(
    'the container image over HTTP',
    async () => {
      const container = await startContainer()
      return overHttp(container.url, container.credentials, async () => {
        await container.stop()
      })
    },
    httpControls,
  )
}
