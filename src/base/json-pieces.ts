/** About how many characters of JSON one piece holds: the size of a socket's write. */
const pieceLength = 65_536

/**
 * The JSON array of `items`, each written by `jsonOf`, in pieces of about 64 KiB, never as one
 * string; the event loop turns between two pieces (a timer, so that every request that arrived
 * meanwhile is read and answered first): what a control writes as it reads a long list, so that
 * other callers are answered while it is written.
 *
 * @example for await (const piece of jsonArrayPieces(faults, JSON.stringify)) out.write(piece)
 */
export async function* jsonArrayPieces<T>(
  items: readonly T[],
  jsonOf: (item: T) => string,
): AsyncGenerator<string> {
  let piece = '['
  for (let i = 0; i < items.length; i++) {
    piece += (i === 0 ? '' : ',') + jsonOf(items[i] as T)
    if (piece.length >= pieceLength) {
      yield piece
      piece = ''
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
  }
  yield `${piece}]`
}
