/** Why a control call of {@link MockApiClientError} got no usable answer. */
export type MockApiClientErrorCode = 'timeout' | 'unreachable' | 'invalid-answer'

/**
 * A control call of `connectMockApi` that got no usable answer: no answer within the client's
 * `timeoutMs` (`timeout`), none at all (`unreachable`: refused, reset, a name that does not
 * resolve), or an answer that is not what the endpoint gives (`invalid-answer`: a proxy's page,
 * a body that is not the JSON it should be). An error answer of the mock itself is an `ApiError`.
 * `cause` holds the underlying error, where there is one.
 *
 * @example
 * try { await api.state() } catch (error) {
 *   if (error instanceof MockApiClientError && error.code === 'timeout') retry()
 * }
 */
export class MockApiClientError extends Error {
  override name = 'MockApiClientError'
  readonly code: MockApiClientErrorCode

  constructor(code: MockApiClientErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
}
