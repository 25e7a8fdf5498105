import { dirname } from 'node:path'

/**
 * Why `path` could not be opened, read or written, in plain words for the end of one line: the
 * common causes by name, anything else as Node tells it.
 *
 * @example `cannot write ${path}: ${fileErrorInWords(path, error)}` // '… its directory /missing does not exist'
 */
export function fileErrorInWords(path: string, error: unknown): string {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOENT':
      return `its directory ${dirname(path)} does not exist`
    case 'ENOTDIR':
      return `a part of ${dirname(path)} is not a directory`
    case 'EISDIR':
      return 'it is a directory'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'EROFS':
      return 'the file system is read-only'
    case 'ENOSPC':
      return 'the disk is full'
    default:
      return error instanceof Error ? error.message : String(error)
  }
}
