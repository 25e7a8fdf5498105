/**
 * `text`, flattened. A string built by concatenation (a template literal, `+`) is kept by V8 as
 * a tree of its pieces, 32 bytes a node, for as long as it lives: a stored key or field flat is
 * about half the memory (47 rather than 75 bytes for a 20-character id). Running a regular
 * expression on a string flattens it in place; a number conversion or a `join` would not. About
 * 0.1 µs; strings shorter than 13 characters are never trees. A `Map` key needs none: V8 flattens
 * a string when it first hashes it (the indexes' keys are flat so).
 *
 * @example
 * const certificateId = flatString(`cert-${suffix}`)
 */
export function flatString(text: string): string {
  if (text.length >= 13) anything.test(text)
  return text
}

const anything = /^/
