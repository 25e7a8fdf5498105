/** What {@link readBytes} read: the bytes, and whether that was the whole stream. */
export interface ReadBytes {
  bytes: Uint8Array
  /** `false` when the stream went past the limit: it was cancelled, `bytes` is its start. */
  complete: boolean
}

/**
 * Reads `stream` to its end, or until it goes past `limit` bytes, then cancels it: a body is
 * never held whole in memory beyond the limit (and one chunk).
 *
 * @example
 * const { bytes, complete } = await readBytes(request.body, 1024)
 */
export async function readBytes(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<ReadBytes> {
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return { bytes: concatenate(chunks, size), complete: true }
    chunks.push(value)
    size += value.byteLength
    if (size > limit) {
      await reader.cancel()
      return { bytes: concatenate(chunks, size), complete: false }
    }
  }
}

function concatenate(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}
