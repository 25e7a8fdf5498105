/**
 * The mock's image as a Testcontainers module: `new IdentifyApiMockContainer(image).start()` runs
 * the server, waits for its health check, and hands out its base URL, its API keys and a client.
 * `IdentifyApiMockContainer.buildImage()` builds the image from the installed package first.
 *
 * @example
 * import { IdentifyApiMockContainer } from 'identify-api-mock/testcontainers'
 *
 * const container = await IdentifyApiMockContainer.buildImage('identify-api-mock')
 * const mock = await container
 *   .withData({ organisations: [{ orgId: 'acme', apiKeys: ['test-key'] }], users: [] })
 *   .withOptions({ seed: 7 })
 *   .start()
 * const tenant = await mock.getClient().organisations.create()
 * // … the backend under test calls mock.getBaseUrl() with tenant.apiKey
 * await mock.stop()
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  AbstractStartedContainer,
  GenericContainer,
  getContainerRuntimeClient,
  type StartedTestContainer,
  Wait,
} from 'testcontainers'
import type { DataFile } from '../api/data-file.ts'
import { connectMockApi, type MockApiClient } from '../client/connect-mock-api.ts'
import { isMockHealth } from '../control/control-answers.ts'
import type { Credentials } from '../model/dataset.ts'
import { flagOf, variableOf } from '../server/serve-flags.ts'
import type { ServerOptions } from '../server/server-options.ts'
import { contextDockerfile, writePackageContext } from './image-context.ts'

/** The port the image's server listens on inside the container. */
const port = 4010
/** Where a data file given to {@link IdentifyApiMockContainer.withData} is put in the container. */
const dataTarget = '/tmp/identify-api-mock-data.json'

/**
 * Whether a health answer's text is the mock's: the wait strategy's predicate, so that a 200 from
 * another server on the port is not taken for the mock.
 *
 * @example isMockHealthText('{"status":"ok"}') // false
 */
export function isMockHealthText(text: string): boolean {
  try {
    return isMockHealth(JSON.parse(text))
  } catch {
    return false
  }
}

/**
 * The server's options a container takes, as `serve` flags: those of one value (or a list), not
 * where it listens (the image's), nor the ones with a `with…` method of their own.
 */
export type ContainerOptions = Omit<
  ServerOptions,
  'port' | 'host' | 'data' | 'organisations' | 'webhooks' | 'controlToken' | 'stateFile'
>

/**
 * A container of the mock's image, configured with typed `with…` methods. `image` is the name of
 * an image built from the package's `Dockerfile` (`identify-api-mock` by default: what
 * `docker build -t identify-api-mock .` and {@link IdentifyApiMockContainer.buildImage} tag), a
 * local one unless it names a registry.
 */
export class IdentifyApiMockContainer extends GenericContainer {
  #controlToken: string | undefined
  #flags: string[] = []

  /**
   * Builds the image named `image` from the installed package alone, through the engine's build
   * API, and gives a container of it. The build runs the run stage of the package's `Dockerfile`
   * on the package's own files, its build stage being the installed package; the base image
   * (`node:26-trixie-slim`) is pulled only if the engine does not have it. A later build reuses the
   * engine's cached layers.
   *
   * @example
   * import { IdentifyApiMockContainer } from 'identify-api-mock/testcontainers'
   *
   * const mock = await (await IdentifyApiMockContainer.buildImage()).start()
   */
  static async buildImage(image = 'identify-api-mock'): Promise<IdentifyApiMockContainer> {
    const context = mkdtempSync(join(tmpdir(), 'identify-api-mock-image-'))
    try {
      writePackageContext(context)
      await GenericContainer.fromDockerfile(context, contextDockerfile).build(image, {
        deleteOnExit: false,
      })
    } finally {
      rmSync(context, { recursive: true, force: true })
    }
    return new IdentifyApiMockContainer(image)
  }

  constructor(image = 'identify-api-mock') {
    super(image)
    this.withExposedPorts(port).withWaitStrategy(
      // The mock's health answer, not any 200: its name says it is the mock.
      Wait.forHttp('/__mock/health', port)
        .forStatusCode(200)
        .forResponsePredicate(isMockHealthText),
    )
  }

  /**
   * The data file the server starts with (`--data`): an object, or the path of a JSON file on
   * this machine. It is copied into the container, readable by the server's user.
   */
  withData(data: DataFile | string): this {
    if (typeof data === 'string') {
      this.withCopyFilesToContainer([{ source: data, target: dataTarget, mode: 0o444 }])
    } else {
      const content = JSON.stringify(data)
      this.withCopyContentToContainer([{ content, target: dataTarget, mode: 0o444 }])
    }
    return this.withEnvironment({ [variableOf('data')]: dataTarget })
  }

  /** Server options, passed as the `serve` flags that set them. */
  withOptions(options: ContainerOptions): this {
    this.#flags.push(...flagsOf(options))
    return this.withCommand(this.#flags)
  }

  /** Guards `/__mock` with a control token; the started container's client sends it. */
  withControlToken(token: string): this {
    this.#controlToken = token
    return this.withEnvironment({ [variableOf('controlToken')]: token })
  }

  /**
   * Starts the container and waits until `/__mock/health` answers 200 as the mock (its name in
   * the answer). An image named without a registry (`identify-api-mock`, the default) is a local
   * one: it is never pulled (no registry has it), and when the engine lacks it, `start()` rejects
   * with one line naming the tag looked for and `buildImage()`.
   */
  override async start(): Promise<StartedIdentifyApiMockContainer> {
    const image = this.imageName
    if (image.registry === undefined) {
      const client = await getContainerRuntimeClient()
      if (!(await client.image.exists(image))) {
        throw new Error(
          `identify-api-mock: the engine has no image ${image.string}: build it first with await IdentifyApiMockContainer.buildImage('${image.string}'), or docker build -t ${image.string} . in a clone`,
        )
      }
    }
    const started = await super.start()
    const baseUrl = `http://${started.getHost()}:${started.getMappedPort(port)}`
    const client = connectMockApi(baseUrl, { controlToken: this.#controlToken })
    return new StartedIdentifyApiMockContainer(started, baseUrl, client, await client.credentials)
  }
}

/** A started {@link IdentifyApiMockContainer}. */
export class StartedIdentifyApiMockContainer extends AbstractStartedContainer {
  readonly #baseUrl: string
  readonly #client: MockApiClient
  readonly #credentials: Credentials[]

  constructor(
    started: StartedTestContainer,
    baseUrl: string,
    client: MockApiClient,
    credentials: Credentials[],
  ) {
    super(started)
    this.#baseUrl = baseUrl
    this.#client = client
    this.#credentials = credentials
  }

  /**
   * `http://HOST:PORT` of the server, as the engine gives it for this machine: HOST is
   * Testcontainers' `getHost()` (`localhost` with Docker's local socket; with podman's, often the
   * address of its network's gateway, such as `10.88.0.1`), PORT the host port the engine
   * published 4010 on (a free one, unless `withExposedPorts({ container: 4010, host })` pins it).
   * Use it as it is.
   */
  getBaseUrl(): string {
    return this.#baseUrl
  }

  /** The organisations the server started with and their API keys (the banner's). */
  getCredentials(): Credentials[] {
    return this.#credentials
  }

  /** The first API key of `orgId` (of the first organisation when not given). */
  getApiKey(orgId?: string): string {
    const org = this.#credentials.find((c) => orgId === undefined || c.orgId === orgId)
    const key = org?.apiKeys[0]
    if (key === undefined) throw new TypeError(`no API key for ${orgId ?? 'any organisation'}`)
    return key
  }

  /** The server's controls and tenants over HTTP (`connectMockApi`). */
  getClient(): MockApiClient {
    return this.#client
  }
}

/** The `serve` flags of `options`: a list of numbers as one comma-separated value. */
function flagsOf(options: ContainerOptions, prefix = ''): string[] {
  return Object.entries(options).flatMap(([key, value]): string[] => {
    const path = `${prefix}${key}`
    if (value === undefined) return []
    const flag = flagOf(path)
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      // An option whose flag takes JSON (`--latency`), or a group of options with a flag each.
      return flag ? [flag, JSON.stringify(value)] : flagsOf(value as ContainerOptions, `${path}.`)
    }
    if (flag === undefined) throw new TypeError(`no serve flag sets ${path}`)
    if (typeof value === 'boolean') return value === !flag.startsWith('--no-') ? [flag] : []
    if (Array.isArray(value)) {
      return value.every((item) => typeof item === 'number')
        ? [flag, value.join(',')]
        : value.flatMap((item) => [flag, String(item)])
    }
    return [flag, String(value)]
  })
}
