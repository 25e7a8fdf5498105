import { readFile } from 'node:fs/promises'
import { fileErrorInWords } from './file-errors.ts'

/**
 * The JSON of the data file at `path`, as `serve --data` and the shared-server entries read it; a
 * `TypeError` of one line that names the file otherwise. Its content is checked by the options
 * schema afterwards.
 *
 * @example const data = await readDataFile('test/data.json')
 */
export async function readDataFile(path: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT'
    throw new TypeError(
      `${path}: cannot be read: ${missing ? 'no such file' : fileErrorInWords(path, error)}`,
    )
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new TypeError(`${path}: not JSON (${(error as Error).message})`)
  }
}
