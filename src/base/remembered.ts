/**
 * `compute` remembered per text, for a value a client sends again and again (its `Host`, its API
 * key): up to `limit` values, forgotten all at once past it, so that a client sending a new value
 * every time costs the computation and no memory. `compute` gives the same for the same text and
 * never `undefined`.
 *
 * @example
 * const verdictOf = remembered((host) => parseHost(host), 256)
 */
export function remembered<T>(compute: (text: string) => T, limit: number): (text: string) => T {
  const known = new Map<string, T>()
  return (text) => {
    let value = known.get(text)
    if (value === undefined) {
      value = compute(text)
      if (known.size >= limit) known.clear()
      known.set(text, value)
    }
    return value
  }
}
