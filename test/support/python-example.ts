import { spawnSync } from 'node:child_process'

/**
 * The first Python here with pytest and pytest-xdist (Debian's `python3-pytest`,
 * `python3-pytest-xdist`), which the Python example's suite needs; none without them.
 */
export const python = ['python3', '/usr/bin/python3'].find(
  (command) => spawnSync(command, ['-c', 'import pytest, xdist']).status === 0,
)

/**
 * What pytest prints when the Python example's whole suite passed (examples/python-backend): its
 * number of tests in one place, for every run of it (in-repository, from the packed package, and
 * in the container guide's CI job).
 */
export const pythonExamplePassed = /^25 passed in /m
