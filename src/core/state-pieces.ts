import type { MockState } from '../model/database.ts'

/**
 * The JSON of `state`, in pieces of about 64 KiB, never as one string; the event loop turns
 * between them: what `GET /__mock/state` writes as it reads.
 *
 * @example for await (const piece of statePieces(await core.state())) out.write(piece)
 */
export async function* statePieces(state: MockState): AsyncGenerator<string> {
  let piece = ''
  for (const [index, [name, records]] of Object.entries(state).entries()) {
    piece += `${index === 0 ? '{' : ','}${JSON.stringify(name)}:[`
    for (const [i, record] of (records as object[]).entries()) {
      piece += (i === 0 ? '' : ',') + JSON.stringify(record)
      if (piece.length >= 65_536) {
        yield piece
        piece = ''
        await new Promise((resolve) => setTimeout(resolve, 0))
      }
    }
    piece += ']'
  }
  yield `${piece}}`
}
