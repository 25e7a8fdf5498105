/**
 * `npm run bench`: the performance goals (bench/README.md), measured side by side in one run,
 * each figure printed with its goal, its ratio and whether it is met.
 *
 *   npm run bench                 # the whole run, about 7 minutes on 2 cores
 *   npm run bench -- --quick      # every figure from shorter runs and fewer calls (a smoke test)
 *   npm run bench -- --only=1,6   # some sections (6: 60 s of sustained identify; 7: the state file,
 *                                 # memory after a reset and under a slow-body flood;
 *                                 # 8: importing the package, and a vitest suite)
 *   npm run bench -- --only=1 --against=d7b89d5
 *                                 # section 1 with that commit's server run beside this one too,
 *                                 # judged round by round (a change's cost, on a noisy machine)
 *
 * HTTP load comes from autocannon (10 connections, 32 for sections 1 and 7, to 127.0.0.1 only;
 * section 1 also runs WireMock, which needs Java, mountebank and Prism), micro-benchmarks from
 * tinybench; targets compared with each other run interleaved and the medians are compared.
 * Needs `npm run build` (the script runs it) for the bin's start-up figures.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism, cpus, tmpdir } from 'node:os'
import { join, resolve as resolvePath } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createMockApi } from '../src/root/create-mock-api.ts'
import { maxBodiesBytes, maxSourceBytes } from '../src/server/body-budget.ts'
import { checkoutOf } from './lib/checkout.ts'
import { journalFlood, slowBodyFlood } from './lib/flood.ts'
import {
  benchKey,
  identifyThenDelete,
  identifyThenRedeem,
  identifyUpdates,
  type LoadResult,
  load,
} from './lib/http-load.ts'
import { importCosts, type TestFileCpu, testFileCpu, vitestSuiteCosts } from './lib/import-cost.ts'
import {
  InProcessClient,
  inProcessCosts,
  ruleCosts,
  sizedOptions,
  sizedRuleContext,
  suiteCosts,
} from './lib/in-process.ts'
import { instructionsPerCall } from './lib/instructions.ts'
import { closeHandlesOfClosedSockets } from './lib/msw-socket-leak.ts'
import { prismPackage, startPrism } from './lib/prism.ts'
import {
  binPath,
  cpuSecondsOf,
  type MockServer,
  send,
  startBareServer,
  startMockServer,
  timeToFirst200,
} from './lib/processes.ts'
import { type Figure, formatTable, mb, ms, perSecond, us } from './lib/report.ts'
import { snapshotCosts } from './lib/snapshots.ts'
import { createTenant, fillFaultQueue, identifyWhile, pollFaults, quantile } from './lib/stall.ts'
import { growState, removeStateFile, stateBytes, timedStart } from './lib/state-file.ts'
import { interleave, median } from './lib/stats.ts'
import { startMountebank, startWireMock } from './lib/stub-servers.ts'
import { sustainedIdentify } from './lib/sustained.ts'
import { reproduceLeak } from './msw-leak.ts'
import { soak } from './soak.ts'

const quick = process.argv.includes('--quick')
/** A commit whose server section 1 also runs, beside this checkout's (`--against=COMMIT`). */
const against = process.argv.find((a) => a.startsWith('--against='))?.slice('--against='.length)
const plan = quick
  ? {
      throughput: { duration: 1, warmUp: 1, maxWarmUp: 3 },
      rounds: 2,
      seconds: 1,
      microMs: 150,
      startRounds: 3,
      bigStarts: 1,
      inProcessCalls: 5_000,
      soakCalls: 50_000,
      sustained: { seconds: 6, windowSeconds: 1 },
      importRounds: 3,
      suiteRounds: 1,
    }
  : {
      throughput: { duration: 10, warmUp: 3, maxWarmUp: 90 },
      rounds: 3,
      seconds: 4,
      microMs: 400,
      startRounds: 7,
      bigStarts: 3,
      inProcessCalls: 100_000,
      soakCalls: 1_000_000,
      sustained: { seconds: 60, windowSeconds: 10 },
      importRounds: 9,
      suiteRounds: 3,
    }
const small = 1_000
const large = 100_000

/**
 * Sections 1 and 7 load with 32 connections, as the baseline their goals are set from was
 * measured: a run on a quiet day of a 2-core machine, the server at 6,888 calls/s, 2,502 with
 * `--state-file`, a bare node:http server at 41,954 (the goals: twice those, and at most 75 µs of
 * CPU a call). This machine differs: a goal is judged against the bare server measured beside it.
 */
const throughputConnections = 32
const baseline = { callsPerSecond: 6_888, stateFileCallsPerSecond: 2_502, cpuUsGoal: 75 }
/**
 * `main` as it stood when those goals were set: section 1 runs that server too, beside this one,
 * so that "twice the calls/s, half the CPU a call" is also measured as it is meant, on the same
 * machine in the same run.
 */
const baselineCommit = 'adbe4f9'
/**
 * The bare node:http server of the baseline's run (41,954 calls/s at 19 µs of CPU a call): this
 * machine is slower and shared, so section 1 judges its goals against the bare server measured in
 * the same run, scaled as the baseline's goals stand to the baseline's bare server.
 */
const baselineBare = { callsPerSecond: 41_954, cpuUs: 19 }
const scaledGoals = {
  /** At most 75 µs where bare took 19: 3.95 × bare's CPU a call. */
  cpuAtMost: baseline.cpuUsGoal / baselineBare.cpuUs,
  /** At least 2 × 6,888 where bare answered 41,954: 0.33 × bare's calls/s. */
  callsAtLeast: (2 * baseline.callsPerSecond) / baselineBare.callsPerSecond,
}
const packageVersion = (name: string) =>
  (createRequire(import.meta.url)(`${name}/package.json`) as { version: string }).version
const wiremockVersion = packageVersion('wiremock')
const mountebankVersion = packageVersion('mountebank')

const figures: Figure[] = []
const notes: string[] = []
const say = (text: string) => process.stdout.write(`${text}\n`)

// In this process every in-process figure goes through msw's `setupServer`, whose interception
// leaks about 50 KB per `fetch` (see bench/msw-leak.ts); without the workaround the heap grows
// by gigabytes over the run and the garbage collector's work distorts every later figure.
closeHandlesOfClosedSockets()

const cpuModel = cpus()[0]?.model ?? 'unknown CPU'
say(
  `identify-api-mock benchmarks — ${availableParallelism()} cores (${cpuModel}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}${quick ? ' — QUICK RUN, figures indicative only' : ''}`,
)

/** Throughput (200s per second) of one autocannon run; a run with any failure is refused. */
async function okPerSecond(run: Promise<LoadResult>, what: string): Promise<number> {
  const result = await run
  if (result.failures > 0) throw new Error(`${what}: ${result.failures} failed answers`)
  return result.okPerSecond
}

/**
 * Two figures: `floor`, for comparison, then `subject` with its goal, at most `atMost` × the floor
 * (`format` writes each measure with its unit).
 */
function pushAgainstFloor(
  goal: number,
  format: (value: number) => string,
  floor: { name: string; value: number; target: string },
  subject: { name: string; value: number; atMost: number; target: string },
) {
  figures.push({ goal, name: floor.name, measured: format(floor.value), target: floor.target })
  const ratio = subject.value / floor.value
  figures.push({
    goal,
    name: subject.name,
    measured: format(subject.value),
    target: subject.target,
    ratio,
    met: ratio <= subject.atMost,
  })
}

// 1. Standalone server throughput beside a bare node:http server and the stub servers teams use.
async function throughput() {
  say(
    '\n1. Standalone server identify throughput, beside bare node:http, WireMock, mountebank, Prism…',
  )
  const mock = await startMockServer(sizedOptions(small))
  const target = identifyUpdates(mock.url, benchKey, 'X', 'bench-user')
  const sample = await send(target)
  const earlier = checkoutOf(baselineCommit)
  const compared = against === undefined ? undefined : checkoutOf(against)
  const servers: Record<
    string,
    { url: string; pid: number; stop(): unknown } | { unavailable: string }
  > = {
    bare: await startBareServer(sample.body),
    mock,
    before:
      'folder' in earlier ? await startMockServer(sizedOptions(small), earlier.folder) : earlier,
    ...(compared && {
      against:
        'folder' in compared
          ? await startMockServer(sizedOptions(small), compared.folder)
          : compared,
    }),
    wiremock: await startWireMock(sample.body),
    mountebank: await startMountebank(sample.body),
    prism: await startPrism(),
  }
  const names: Record<string, string> = {
    bare: 'bare node:http, fixed JSON of the same size',
    mock: 'standalone server, identify (update)',
    before: `the same server as it was when the goals were set (${baselineCommit})`,
    against: `the same server at ${against}`,
    wiremock: `WireMock ${wiremockVersion} standalone, one stub (stateless, JVM)`,
    mountebank: `mountebank ${mountebankVersion}, one imposter, keep-alive`,
    prism: `Prism mock (${prismPackage}, logging off)`,
  }
  const { duration, warmUp, maxWarmUp } = plan.throughput
  try {
    const live = Object.entries(servers).flatMap(([key, server]) =>
      'url' in server ? [{ key, server }] : [],
    )
    const run = async (server: { url: string; pid: number }, seconds: number) => {
      const cpuBefore = cpuSecondsOf(server.pid)
      const result = await load({
        ...target,
        url: `${server.url}/api/v1/users/identify`,
        connections: throughputConnections,
        duration: seconds,
      })
      const cpu = cpuSecondsOf(server.pid) - cpuBefore
      if (result.failures > 0) throw new Error(`${server.url}: ${result.failures} failed answers`)
      return { ...result, cpuUsPerCall: (cpu * 1e6) / result.answers }
    }
    // The JVM (and V8) compile as they run, the JVM for long on a busy machine: each server is
    // loaded until two runs in a row do not beat its best rate so far by a tenth (one such run
    // can be a slow spell of the machine).
    const warmedUp: Record<string, number> = {}
    for (const { key, server } of live) {
      let seconds = 0
      for (let best = 0, flat = 0; seconds < maxWarmUp && flat < 2; ) {
        seconds += warmUp
        const rate = (await run(server, warmUp)).okPerSecond
        flat = rate < best * 1.1 ? flat + 1 : 0
        best = Math.max(best, rate)
      }
      warmedUp[key] = seconds
    }
    const samples = await interleave(
      plan.rounds,
      Object.fromEntries(live.map(({ key, server }) => [key, () => run(server, duration)])),
    )
    const measured = Object.fromEntries(
      Object.entries(samples).map(([key, runs]) => [
        key,
        {
          rate: median(runs.map((r) => r.okPerSecond)),
          p50: median(runs.map((r) => r.p50Ms)),
          p99: median(runs.map((r) => r.p99Ms)),
          cpuUs: median(runs.map((r) => r.cpuUsPerCall)),
        },
      ]),
    )
    for (const [key, server] of Object.entries(servers)) {
      const m = measured[key]
      figures.push({
        goal: 1,
        name: names[key] as string,
        measured: m
          ? `${perSecond(m.rate)} · p50 ${m.p50.toFixed(2)} ms · p99 ${m.p99.toFixed(1)} ms · ${m.cpuUs.toFixed(0)} µs CPU a call`
          : 'not measured',
        target: key === 'mock' ? 'the goals below' : 'for comparison',
      })
      if ('unavailable' in server)
        notes.push(`${names[key]} was not measured: ${server.unavailable}.`)
    }
    const ours = measured.mock
    const bare = measured.bare
    type Run = { okPerSecond: number; cpuUsPerCall: number }
    const byKey = samples as Record<string, Run[] | undefined>
    const mine = byKey.mock
    const theirs = byKey.against
    if (mine && theirs) {
      // Each round's own ratio, the two runs of a round side by side: the machine's slow spells
      // fall on both, where the ratio of two medians mixes rounds.
      const paired = (of: (run: Run) => number) =>
        median(mine.map((run, i) => of(run) / of(theirs[i] as Run)))
      const calls = paired((run) => run.okPerSecond)
      const cpu = paired((run) => run.cpuUsPerCall)
      figures.push({
        goal: 1,
        name: `standalone server calls/s against ${against}'s, round by round`,
        measured: `median of ${mine.length} rounds' ratios`,
        target: '≥ 0.95 × (within 5 %)',
        ratio: calls,
        met: calls >= 0.95,
      })
      figures.push({
        goal: 1,
        name: `standalone server CPU a call against ${against}'s, round by round`,
        measured: `median of ${mine.length} rounds' ratios`,
        target: '≤ 1.05 × (within 5 %)',
        ratio: cpu,
        met: cpu <= 1.05,
      })
    }
    if (compared && 'folder' in compared) {
      say(`   instructions a call under callgrind, this checkout and ${against}…`)
      const [counted, theirCount] = await Promise.all([
        instructionsPerCall(sizedOptions(small)),
        instructionsPerCall(sizedOptions(small), compared.folder),
      ])
      if (typeof counted === 'number' && typeof theirCount === 'number') {
        figures.push({
          goal: 1,
          name: `standalone server instructions a call against ${against}'s (callgrind)`,
          measured: `${Math.round(counted).toLocaleString('en')} against ${Math.round(theirCount).toLocaleString('en')}`,
          target: '≤ 1.05 × (within 5 %)',
          ratio: counted / theirCount,
          met: counted / theirCount <= 1.05,
        })
      } else {
        const why = typeof counted === 'number' ? theirCount : counted
        notes.push(
          `Instructions a call were not counted: ${(why as { unavailable: string }).unavailable}.`,
        )
      }
    }
    const wiremock = measured.wiremock
    const before = measured.before
    if (ours && before) {
      // The goals as the baseline set them, against the server it measured, run beside this one.
      figures.push({
        goal: 1,
        name: `standalone server calls/s against ${baselineCommit}'s, beside it`,
        measured: `${perSecond(ours.rate)} against ${perSecond(before.rate)}`,
        target: `≥ 2 × (${perSecond(2 * baseline.callsPerSecond)} where it did ${perSecond(baseline.callsPerSecond)})`,
        ratio: ours.rate / before.rate,
        met: ours.rate >= 2 * before.rate,
      })
      figures.push({
        goal: 1,
        name: `standalone server CPU a call against ${baselineCommit}'s, beside it`,
        measured: `${ours.cpuUs.toFixed(0)} µs against ${before.cpuUs.toFixed(0)} µs`,
        target: `≤ 0.5 × (${baseline.cpuUsGoal} µs where it took ${2 * baseline.cpuUsGoal})`,
        ratio: ours.cpuUs / before.cpuUs,
        met: ours.cpuUs <= 0.5 * before.cpuUs,
      })
    }
    if (ours && bare) {
      // The goals, judged here: scaled by the bare server measured beside the mock.
      const calls = ours.rate / bare.rate
      figures.push({
        goal: 1,
        name: "standalone server calls/s against bare node:http's in this run",
        measured: `${perSecond(ours.rate)} against ${perSecond(bare.rate)}`,
        target: `≥ ${scaledGoals.callsAtLeast.toFixed(2)} × bare's (2 × ${perSecond(baseline.callsPerSecond)} where bare did ${perSecond(baselineBare.callsPerSecond)})`,
        ratio: calls,
        met: calls >= scaledGoals.callsAtLeast,
      })
      const cpu = ours.cpuUs / bare.cpuUs
      figures.push({
        goal: 1,
        name: "standalone server CPU a call against bare node:http's in this run",
        measured: `${ours.cpuUs.toFixed(0)} µs against ${bare.cpuUs.toFixed(0)} µs`,
        target: `≤ ${scaledGoals.cpuAtMost.toFixed(2)} × bare's (${baseline.cpuUsGoal} µs where bare took ${baselineBare.cpuUs} µs)`,
        ratio: cpu,
        met: cpu <= scaledGoals.cpuAtMost,
      })
    }
    if (ours) {
      // The same goals in absolute figures, for comparison: they hold on the baseline's machine.
      figures.push({
        goal: 1,
        name: `standalone server calls/s against the baseline's ${perSecond(baseline.callsPerSecond)}`,
        measured: perSecond(ours.rate),
        target: "≥ 2 × on the baseline's machine (for comparison)",
        ratio: ours.rate / baseline.callsPerSecond,
      })
      figures.push({
        goal: 1,
        name: 'standalone server CPU a call (from /proc)',
        measured: `${ours.cpuUs.toFixed(0)} µs`,
        target: `≤ ${baseline.cpuUsGoal} µs on the baseline's machine (for comparison)`,
        ratio: ours.cpuUs / baseline.cpuUsGoal,
      })
    }
    if (ours && wiremock) {
      const against = (name: string, value: number, ratio: number, met: boolean) =>
        figures.push({
          goal: 1,
          name,
          measured: `${value.toFixed(2)} ×`,
          target: 'the aim',
          ratio,
          met,
        })
      against(
        'calls/s against WireMock',
        ours.rate / wiremock.rate,
        ours.rate / wiremock.rate,
        ours.rate >= wiremock.rate,
      )
      against(
        'CPU a call against WireMock',
        ours.cpuUs / wiremock.cpuUs,
        ours.cpuUs / wiremock.cpuUs,
        ours.cpuUs <= wiremock.cpuUs,
      )
      against(
        'p99 against WireMock',
        ours.p99 / wiremock.p99,
        ours.p99 / wiremock.p99,
        ours.p99 <= wiremock.p99,
      )
    }
    notes.push(
      `Throughput: autocannon, ${throughputConnections} connections, the same identify with a full profile to every server (each stub answers the mock's own answer, ${sample.body.length} bytes), a warm-up in runs of ${warmUp} s until two in a row did not beat the best rate by a tenth (${Object.entries(
        warmedUp,
      )
        .map(([key, seconds]) => `${key} ${seconds} s`)
        .join(
          ', ',
        )}), then ${plan.rounds} interleaved runs of ${duration} s per server, medians; latency as autocannon times each answer (no server closes a connection: the mock runs without maxRequestsPerSocket); CPU a call is the server's processes' user and system time from /proc/PID/stat over the run, divided by its 200 answers.`,
    )
  } finally {
    for (const server of Object.values(servers)) {
      if ('stop' in server) await server.stop()
    }
    if ('remove' in earlier) earlier.remove()
    if (compared && 'remove' in compared) compared.remove()
  }
}

// 2. Flat with size: HTTP, in-process and the rules themselves, at 1,000 and 100,000 users.
async function flatWithSize() {
  say('\n2. Flat with size: over HTTP…')
  const servers = {
    small: await startMockServer(sizedOptions(small)),
    large: await startMockServer(sizedOptions(large)),
  }
  try {
    const duration = plan.seconds
    const scenario = (size: 'small' | 'large', kind: 'identify' | 'delete' | 'redeem') => () => {
      const { url } = servers[size]
      const options =
        kind === 'identify'
          ? identifyUpdates(url, benchKey, 'X', 'bench-user')
          : kind === 'delete'
            ? identifyThenDelete(url, benchKey, 'X')
            : identifyThenRedeem(url, benchKey, 'X', 'bench-user')
      return okPerSecond(load({ ...options, duration }), `${kind} at ${size}`)
    }
    await send(identifyUpdates(servers.small.url, benchKey, 'X', 'bench-user'))
    await send(identifyUpdates(servers.large.url, benchKey, 'X', 'bench-user'))
    const samples = await interleave(plan.rounds, {
      identifySmall: scenario('small', 'identify'),
      identifyLarge: scenario('large', 'identify'),
      deleteSmall: scenario('small', 'delete'),
      deleteLarge: scenario('large', 'delete'),
      redeemSmall: scenario('small', 'redeem'),
      redeemLarge: scenario('large', 'redeem'),
    })
    const rows = [
      ['identify (update)', samples.identifySmall, samples.identifyLarge],
      ['identify (new) then delete', samples.deleteSmall, samples.deleteLarge],
      ['identify then token redemption', samples.redeemSmall, samples.redeemLarge],
    ] as const
    for (const [name, atSmall, atLarge] of rows) {
      const [s, l] = [median(atSmall), median(atLarge)]
      figures.push({
        goal: 2,
        name: `HTTP, ${name}: 100k vs 1k users`,
        measured: `${perSecond(l)} vs ${perSecond(s)}`,
        target: 'cost ≤ 1.3 × at 1k',
        ratio: s / l,
        met: s / l <= 1.3,
      })
    }
  } finally {
    await servers.small.stop()
    await servers.large.stop()
  }

  say('   in-process (setupServer + fetch)…')
  {
    const apis = {
      small: createMockApi(sizedOptions(small)),
      large: createMockApi(sizedOptions(large)),
    }
    await Promise.all([apis.small.ready, apis.large.ready])
    const ids = {
      small: (await apis.small.state()).users.map((u) => u.id),
      large: (await apis.large.state()).users.map((u) => u.id),
    }
    const costs = { small: [] as Costs[], large: [] as Costs[] }
    for (let round = 0; round < plan.rounds; round++) {
      costs.small.push(
        await inProcessCosts(new InProcessClient(apis.small), ids.small, plan.microMs),
      )
      costs.large.push(
        await inProcessCosts(new InProcessClient(apis.large), ids.large, plan.microMs),
      )
    }
    pushCostRatios('in-process', costs.small, costs.large)
  }

  say('   the rules, called directly…')
  {
    const contexts = { small: await sizedRuleContext(small), large: await sizedRuleContext(large) }
    const costs = { small: [] as Costs[], large: [] as Costs[] }
    for (let round = 0; round < plan.rounds; round++) {
      costs.small.push(await ruleCosts(contexts.small, plan.microMs))
      costs.large.push(await ruleCosts(contexts.large, plan.microMs))
    }
    pushCostRatios('rule', costs.small, costs.large)
  }
  notes.push(
    `Flat with size: the mock seeded as \`serve --orgs 0 --org X --api-key KEY --users N\`; "identify (new) then delete" and "identify then token redemption" are cycles per connection (a delete needs a user to delete, a redemption a fresh token). In-process and rule figures are tinybench medians, ${plan.rounds} interleaved rounds; the user a delete removes is identified before each measured call, outside the measure.`,
  )
}

interface Costs {
  identify: number
  delete: number
  redeem: number
}

function pushCostRatios(where: string, small: Costs[], large: Costs[]) {
  for (const kind of ['identify', 'delete', 'redeem'] as const) {
    const s = median(small.map((c) => c[kind]))
    const l = median(large.map((c) => c[kind]))
    const label = { identify: 'identify (update)', delete: 'delete', redeem: 'token redemption' }[
      kind
    ]
    figures.push({
      goal: 2,
      name: `${where}, ${label}: 100k vs 1k users`,
      measured: `${us(l)} vs ${us(s)}`,
      target: 'cost ≤ 1.3 × at 1k',
      ratio: l / s,
      met: l / s <= 1.3,
    })
  }
}

// 3. In a test suite: identify against a trivial msw handler; reset against one round trip.
async function inATestSuite() {
  say('\n3. In a test suite…')
  const costs = await suiteCosts(plan.rounds * 2, plan.microMs)
  pushAgainstFloor(
    3,
    ms,
    {
      name: 'trivial msw handler round trip (setupServer + fetch)',
      value: costs.trivial,
      target: 'the msw floor',
    },
    {
      name: 'identify through the MSW handlers',
      value: costs.identify,
      atMost: 1.1,
      target: '≤ 1.1 × trivial',
    },
  )
  figures.push({
    goal: 3,
    name: 'identify through api.fetch (no msw)',
    measured: ms(costs.apiFetch),
    target: '≤ 1/20 × trivial',
    ratio: costs.apiFetch / costs.trivial,
    met: costs.apiFetch / costs.trivial <= 1 / 20,
  })
  figures.push({
    goal: 3,
    name: 'reset() of the default dataset',
    measured: ms(costs.reset),
    target: '< 1 round trip',
    ratio: costs.reset / costs.trivial,
    met: costs.reset < costs.trivial,
  })
  const restore = await snapshotCosts(plan.rounds, plan.microMs)
  figures.push({
    goal: 3,
    name: 'restoreSnapshot() of a tenant of 1,000 users, in-process',
    measured: ms(restore.inProcess),
    target: '≤ 20 ms',
    ratio: restore.inProcess / 20,
    met: restore.inProcess <= 20,
  })
  figures.push({
    goal: 3,
    name: 'restoreSnapshot() of a tenant of 1,000 users, over HTTP',
    measured: ms(restore.overHttp),
    target: '≤ 50 ms',
    ratio: restore.overHttp / 50,
    met: restore.overHttp <= 50,
  })
}

// 4. Start-up: the bin against a bare node:http server; 100,000 users.
async function startUp() {
  say('\n4. Start-up…')
  const identifyFirst = (
    url: string,
    facts: { organisations?: { orgId: string; apiKeys: string[] }[] },
  ) => {
    const org = facts.organisations?.[0]
    return { ...identifyUpdates(url, org?.apiKeys[0] ?? '', org?.orgId ?? '', 'first-user') }
  }
  const bin = [binPath, 'serve', '--port', '0', '--json']
  // The first start after an install fills Node's compile cache; measured on its own.
  const coldCache = mkdtempSync(join(tmpdir(), 'identify-api-mock-cache-'))
  const cold = await timeToFirst200(bin, identifyFirst, {
    ...process.env,
    NODE_COMPILE_CACHE: coldCache,
  })
  await timeToFirst200(bin, identifyFirst)
  const samples = await interleave(plan.startRounds, {
    bare: async () =>
      (
        await timeToFirst200(
          [fileURLToPath(new URL('bare-server.mjs', import.meta.url)), '{}'],
          (url) => ({ url }),
        )
      ).ms,
    serve: async () => (await timeToFirst200(bin, identifyFirst)).ms,
  })
  const [bare, serve] = [median(samples.bare), median(samples.serve)]
  figures.push({
    goal: 4,
    name: 'bare node:http: start to first 200',
    measured: ms(bare),
    target: 'the Node limit',
  })
  figures.push({
    goal: 4,
    name: '`serve`, default data: start to first 200 (identify)',
    measured: ms(serve),
    target: '≤ 3 × bare',
    ratio: serve / bare,
    met: serve / bare <= 3,
  })
  figures.push({
    goal: 4,
    name: '`serve`, default data, first start (empty compile cache)',
    measured: ms(cold.ms),
    target: 'for context',
    ratio: cold.ms / bare,
  })
  const bigArgs = ['serve', '--port', '0', '--json', '--orgs', '0', '--org', 'X']
  bigArgs.push('--api-key', benchKey, '--users', String(large))
  const bigStart = (cli: string) => timeToFirst200([cli, ...bigArgs], identifyFirst)
  // `--base=DIR`: another build (main's, say) started in turn with this one, for a before/after.
  const base = process.argv.find((a) => a.startsWith('--base='))?.slice('--base='.length)
  const starts: Record<string, () => ReturnType<typeof bigStart>> = {
    ours: () => bigStart(binPath),
  }
  if (base) starts.base = () => bigStart(join(resolvePath(base), 'dist/src/server/cli.js'))
  const big = await interleave(plan.bigStarts, starts)
  const bigRuns = big.ours ?? []
  // The server's CPU to its first answer: less swayed than the time by what else the machine runs.
  const cpuMs = (runs: { cpuSeconds: number }[]) => median(runs.map((r) => r.cpuSeconds * 1000))
  if (big.base) {
    const baseMs = median(big.base.map((r) => r.ms))
    figures.push({
      goal: 4,
      name: '`serve --users 100000`, the `--base` build: start to first 200',
      measured: ms(baseMs),
      target: 'for context',
      ratio: baseMs / 2000,
    })
    figures.push({
      goal: 4,
      name: '`serve --users 100000`: server CPU at first 200, this build / `--base`',
      measured: `${ms(cpuMs(bigRuns))} / ${ms(cpuMs(big.base))}`,
      target: 'for context',
      ratio: cpuMs(bigRuns) / cpuMs(big.base),
    })
  }
  const bigMs = median(bigRuns.map((r) => r.ms))
  const peak = Math.max(...bigRuns.map((r) => r.peakRssBytes))
  figures.push({
    goal: 4,
    name: '`serve --users 100000`: start to first 200',
    measured: ms(bigMs),
    target: '≤ 2000 ms',
    ratio: bigMs / 2000,
    met: bigMs <= 2000,
  })
  figures.push({
    goal: 4,
    name: '`serve --users 100000`: RSS at first 200 (peak)',
    measured: `${mb(median(bigRuns.map((r) => r.rssBytes)))} (${mb(peak)})`,
    target: '< 400 MB',
    ratio: peak / 400e6,
    met: peak < 400e6,
  })
  notes.push(
    `Start-up: from spawning \`node dist/src/server/cli.js serve --port 0 --json\` to the end of the answer to an identify sent as soon as the URL is printed; the bare server answers a GET. Medians of ${plan.startRounds} interleaved starts, after one start that fills the compile cache; the 100,000-user figure is the median of ${plan.bigStarts} starts, its RSS read from /proc (peak: VmHWM).`,
  )
}

// 5. Memory over many calls, in-process and over HTTP.
async function memory() {
  say(`\n5. Memory: ${plan.inProcessCalls.toLocaleString('en')} identify calls in-process…`)
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--expose-gc',
      fileURLToPath(new URL('in-process-memory.ts', import.meta.url)),
      String(plan.inProcessCalls),
    ],
    { maxBuffer: 1 << 20 },
  )
  const inProcess = JSON.parse(stdout) as { seconds: number; heapStart: number; heapEnd: number }
  const inProcessGrowth = inProcess.heapEnd - inProcess.heapStart
  figures.push({
    goal: 5,
    name: `${plan.inProcessCalls.toLocaleString('en')} identify in-process: heap end − start`,
    measured: `${mb(inProcessGrowth)} (${mb(inProcess.heapStart)} → ${mb(inProcess.heapEnd)})`,
    target: '≤ 50 MB',
    ratio: inProcessGrowth / 50e6,
    met: inProcessGrowth <= 50e6,
  })

  say(`   ${plan.soakCalls.toLocaleString('en')} identify calls over HTTP (the soak)…`)
  const soaked = await soak(plan.soakCalls)
  if (soaked.failures > 0) throw new Error(`soak: ${soaked.failures} failed answers`)
  const growth = soaked.end.heapUsed - soaked.start.heapUsed
  figures.push({
    goal: 5,
    name: `${plan.soakCalls.toLocaleString('en')} identify over HTTP, --token-ttl 5: heap end − start`,
    measured: `${mb(growth)} (${mb(soaked.start.heapUsed)} → ${mb(soaked.end.heapUsed)}; RSS ${mb(soaked.start.rss)} → ${mb(soaked.end.rss)})`,
    target: '≤ 50 MB',
    ratio: growth / 50e6,
    met: growth <= 50e6,
  })

  say('   msw interception alone (bench/msw-leak.ts)…')
  const leak = await reproduceLeak(quick ? 1000 : 5000)
  const [without, withWorkaround] = leak
  figures.push({
    goal: 5,
    name: 'msw 3 alone, trivial handler: heap kept per fetch',
    measured: `${Math.round(without?.bytesPerCall ?? 0).toLocaleString('en')} B (${Math.round(withWorkaround?.bytesPerCall ?? 0).toLocaleString('en')} B with the workaround)`,
    target: 'msw’s, not ours',
  })
  notes.push(
    `Memory: heap after garbage collection, measured once the tokens issued before have expired and one more call has swept them; the in-process run applies the msw workaround (bench/lib/msw-socket-leak.ts), the HTTP soak ran at ${perSecond(soaked.okPerSecond)} for ${soaked.seconds.toFixed(0)} s.`,
  )
}

// 6. Sustained load: does throughput hold and memory stay flat with tokens bounded?
async function sustained() {
  const { seconds, windowSeconds } = plan.sustained
  say(`\n6. Sustained load: ${seconds} s of identify at full speed…`)
  const run = await sustainedIdentify(seconds, windowSeconds)
  if (run.failures > 0) throw new Error(`sustained load: ${run.failures} failed answers`)
  const [first = Number.NaN, last = Number.NaN] = [run.windows[0], run.windows.at(-1)]
  const name = `${seconds} s of identify at full speed`
  figures.push({
    goal: 6,
    name: `${name}: last ${windowSeconds} s against first ${windowSeconds} s`,
    measured: `${perSecond(last)} vs ${perSecond(first)}`,
    target: '≥ 0.9 × first',
    ratio: last / first,
    met: last / first >= 0.9,
  })
  figures.push({
    goal: 6,
    name: `${name}: RSS at the end (peak)`,
    measured: `${mb(run.end.rss)} (${mb(run.end.peakRss)})`,
    target: 'for context',
  })
  figures.push({
    goal: 6,
    name: `${name}: live sign-in tokens at the end`,
    measured: run.liveTokens.toLocaleString('en'),
    target: '≤ 10 per user',
    met: run.liveTokens <= 10,
  })
  notes.push(
    `Sustained load: one user identified over and over by 10 connections, default options (a token lives 300 s, 10 kept per user), throughput by ${windowSeconds} s: ${run.windows.map((w) => perSecond(w)).join(', ')}.`,
  )
}

// 7. The state file: its cost per call, start-up from it, a state past 600 MB and the memory a
// reset gives back; and the memory a flood of slow bodies takes.
async function stateFile() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-state-'))
  const path = join(dir, 'state.db')
  say('\n7. State file: identify throughput with and without it, beside bare node:http…')
  const withFile = await startMockServer({ ...sizedOptions(small), stateFile: path })
  const inMemory = await startMockServer(sizedOptions(small))
  const updates = (url: string) => ({
    ...identifyUpdates(url, benchKey, 'X', 'bench-user'),
    connections: throughputConnections,
    duration: plan.seconds,
  })
  const bareServer = await startBareServer((await send(updates(inMemory.url))).body)
  try {
    // A warm-up of each server first, not counted: the first round would otherwise time the JIT.
    for (const server of [withFile, inMemory, bareServer]) {
      await load({ ...updates(server.url), duration: plan.throughput.warmUp })
    }
    const samples = await interleave(plan.rounds, {
      file: () => okPerSecond(load(updates(withFile.url)), 'state file'),
      memory: () => okPerSecond(load(updates(inMemory.url)), 'in memory'),
      bare: () => okPerSecond(load(updates(bareServer.url)), 'bare node:http'),
    })
    const [fileRate, memoryRate, bareRate] = [samples.file, samples.memory, samples.bare].map(
      (rates) => median(rates ?? []),
    ) as [number, number, number]
    // The goal, twice the baseline's state-file rate, as a share of the baseline's bare rate.
    const share = (2 * baseline.stateFileCallsPerSecond) / baselineBare.callsPerSecond
    figures.push({
      goal: 7,
      name: `identify (update) with --state-file, each call committed to disk (in memory: ${perSecond(memoryRate)}; bare node:http: ${perSecond(bareRate)})`,
      measured: `${perSecond(fileRate)} = ${(fileRate / bareRate).toFixed(3)} × bare's`,
      target: `≥ ${share.toFixed(3)} × bare's (2 × the baseline's ${perSecond(baseline.stateFileCallsPerSecond)} against its bare ${perSecond(baselineBare.callsPerSecond)})`,
      ratio: fileRate / bareRate / share,
      met: fileRate >= share * bareRate,
    })
  } finally {
    await withFile.stop()
    await inMemory.stop()
    await bareServer.stop()
    removeStateFile(path)
  }

  say('   start-up with 100,000 users, from a new file and from the file written…')
  const sized = { ...sizedOptions(large), stateFile: path }
  const created = await timedStart(sized)
  await created.server.stop()
  const loaded = await timedStart(sized)
  const loadedMemory = await loaded.server.memory()
  await loaded.server.stop()
  const plain = await timedStart(sizedOptions(large))
  await plain.server.stop()
  removeStateFile(path)
  figures.push({
    goal: 7,
    name: 'start-up, 100,000 users: new state file / loaded from it / no file',
    measured: `${ms(created.ms)} / ${ms(loaded.ms)} / ${ms(plain.ms)}`,
    target: 'loaded ≤ 2 × no file',
    ratio: loaded.ms / plain.ms,
    met: loaded.ms <= 2 * plain.ms,
  })
  notes.push(
    `State file start-up: RSS ${mb(loadedMemory.rss)} once loaded; the JSON-lines file before took 29 s / 39 s from a new file / loaded on this machine under load (about the same as the SQLite figures measured beside them: 34 s / 28 s).`,
  )

  const target = quick ? 60e6 : 600e6
  say(`   a state past ${mb(target)}: written, killed, loaded, reset…`)
  const big = {
    seededOrganisations: 0,
    organisations: [{ orgId: 'big', apiKeys: [benchKey], users: 0 }],
    stateFile: path,
    maxStateBytes: 2 ** 31,
    maxUserGroupsPerOrganisation: 10_000_000,
  }
  const first = await startMockServer(big)
  // RSS as the process holds it on its own; the heap (in brackets) after a collection.
  const rssThenHeap = async (server: MockServer) => ({
    rss: (await server.memory({ collect: false })).rss,
    heapUsed: (await server.memory()).heapUsed,
  })
  const atStart = await rssThenHeap(first)
  const calls = await growState(first.url, benchKey, 'big', target)
  // The state is read while another client asks for the health: answered meanwhile?
  const reading = stateBytes(first.url)
  await new Promise((resolve) => setTimeout(resolve, 100))
  const healthStarted = performance.now()
  await send({ url: `${first.url}/__mock/health` })
  const healthMs = performance.now() - healthStarted
  const written = await reading
  const full = await rssThenHeap(first)
  await first.kill()
  const restarted = await timedStart(big)
  const readBack = await stateBytes(restarted.server.url)
  const reloaded = await restarted.server.memory({ collect: false })
  // What the issue asks: a reset, a few requests, and the RSS then (no settle time, no
  // collection forced by the bench: the server's own collection runs right after the reset).
  const resetStarted = performance.now()
  await send({ url: `${restarted.server.url}/__mock/reset`, method: 'POST' })
  for (let i = 0; i < 5; i++) await send({ url: `${restarted.server.url}/__mock/health` })
  const resetMs = performance.now() - resetStarted
  const afterReset = await rssThenHeap(restarted.server)
  await restarted.server.stop()
  rmSync(dir, { recursive: true, force: true })
  figures.push({
    goal: 7,
    name: `state of ${calls} identify calls: JSON written, then read back after SIGKILL`,
    measured: `${mb(written)} / ${mb(readBack)}`,
    target: `> ${mb(target)}, the same after the restart`,
    met: written > target && readBack === written,
  })
  figures.push({
    goal: 7,
    name: 'GET /__mock/health while that state is being read',
    measured: ms(healthMs),
    target: '≤ 1 s',
    met: healthMs <= 1000,
  })
  figures.push({
    goal: 7,
    name: `restart with that state (loaded from the file)`,
    measured: ms(restarted.ms),
    target: 'for context',
  })
  figures.push({
    goal: 7,
    name: 'RSS (heap) after start / full / loaded again / after a reset and 5 requests',
    measured: `${mb(atStart.rss)} (${mb(atStart.heapUsed)}) / ${mb(full.rss)} (${mb(full.heapUsed)}) / ${mb(reloaded.rss)} / ${mb(afterReset.rss)} (${mb(afterReset.heapUsed)})`,
    target: 'after reset ≤ 2 × after start',
    ratio: afterReset.rss / atStart.rss,
    met: afterReset.rss <= 2 * atStart.rss,
  })
  figures.push({
    goal: 7,
    name: 'that reset and the 5 requests after it, the collection included',
    measured: ms(resetMs),
    target: 'for context',
  })

  const flood = quick ? 200 : 800
  say(`   ${flood} slow bodies at once, each 1 MiB announced and all but 100 bytes sent…`)
  // The same flood with a wrong key (each refused before its body is read) measures what the
  // connections cost on their own, side by side: what the bodies add is the difference.
  // And a bare node:http server that reads every body as it comes: what Node itself costs.
  const floodMock = () =>
    startMockServer({
      seededOrganisations: 0,
      organisations: [{ orgId: 'flood', apiKeys: [benchKey], users: 0 }],
    })
  const floodGrowth = async (
    start: () => Promise<Pick<MockServer, 'url' | 'memory' | 'stop'>>,
    apiKey: string,
  ) => {
    const server = await start()
    const before = await server.memory({ collect: false })
    const clients = await slowBodyFlood(server.url, apiKey, flood)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const { peakRss } = await server.memory({ collect: false })
    const cutOff = clients.cutOff()
    clients.release()
    await server.stop()
    return { growth: peakRss - before.rss, before: before.rss, peakRss, cutOff }
  }
  const strangers = await floodGrowth(floodMock, 'not-a-key')
  const keyed = await floodGrowth(floodMock, benchKey)
  const bare = await floodGrowth(() => startBareServer('{}'), benchKey)
  const allowed = maxBodiesBytes + strangers.growth
  figures.push({
    goal: 7,
    name: `slow-body flood, ${flood} connections with a wrong key: peak RSS − RSS before`,
    measured: `${mb(strangers.growth)} (${mb(strangers.before)} → ${mb(strangers.peakRss)})`,
    target: 'what the connections cost',
  })
  figures.push({
    goal: 7,
    name: `the same with the key (${keyed.cutOff} cut off by 503): peak RSS − RSS before`,
    measured: `${mb(keyed.growth)} (${mb(keyed.before)} → ${mb(keyed.peakRss)})`,
    target: '≤ the 64 MiB body budget + the wrong-key flood’s',
    ratio: keyed.growth / allowed,
    met: keyed.growth <= allowed,
  })
  figures.push({
    goal: 7,
    name: 'the same flood on a bare node:http server that reads every body: peak RSS − RSS before',
    measured: `${mb(bare.growth)} (${mb(bare.before)} → ${mb(bare.peakRss)})`,
    target: 'what Node itself costs',
  })

  say("   another tenant's identify during a flood of 64 slow bodies, then the journal flood…")
  const otherKey = 'sk_test_bench_other_9d2e71c4'
  const tenants = await startMockServer({
    seededOrganisations: 0,
    organisations: [
      { orgId: 'flood', apiKeys: [benchKey], users: 0 },
      { orgId: 'other', apiKeys: [otherKey], users: 0 },
    ],
  })
  try {
    const held = await slowBodyFlood(tenants.url, benchKey, 64)
    const duringStarted = performance.now()
    const during = await send({
      url: `${tenants.url}/api/v1/users/identify`,
      method: 'POST',
      headers: { authorization: `Bearer ${otherKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'during-the-flood', orgId: 'other' }),
    })
    const duringMs = performance.now() - duringStarted
    const cutOff = held.cutOff()
    held.release()
    figures.push({
      goal: 7,
      name: `another tenant's identify while one key holds 64 slow 1 MiB bodies (${cutOff} cut off by 503 past its ${mb(maxSourceBytes)} share)`,
      measured: `${during.status} in ${ms(duringMs)}`,
      target: '200 within 1 s',
      ratio: duringMs / 1000,
      met: during.status === 200 && duringMs <= 1000,
    })
    const before = await tenants.memory()
    await journalFlood(tenants.url, [
      { orgId: 'flood', apiKey: benchKey },
      { orgId: 'other', apiKey: otherKey },
    ])
    const after = await tenants.memory()
    // The journal's default budget, its ring of refused calls (at most 3 MB), and 8 MiB.
    const journalAllowed = 16 * 2 ** 20 + 3 * 2 ** 20 + 8 * 2 ** 20
    const heapGrowth = after.heapUsed - before.heapUsed
    figures.push({
      goal: 7,
      name: 'journal flood (2 × 1,000 identify of 16 KiB [{},{},…], 1,500 401s with 15 KB paths): heap after a collection − before (RSS before → after, peak)',
      measured: `${mb(heapGrowth)} (${mb(before.rss)} → ${mb(after.rss)}, peak ${mb(after.peakRss)})`,
      target: '≤ the 16 MiB journal budget + 3 MiB of refused calls + 8 MiB',
      ratio: heapGrowth / journalAllowed,
      met: heapGrowth <= journalAllowed,
    })
  } finally {
    await tenants.stop()
  }
  await longControls()
}

/**
 * Another tenant's identify, sent every 10 ms, while a tenant lists 16 MiB of faults every second, or
 * creates ten organisations of 10,000 users at once: no control call stalls the others.
 */
async function longControls() {
  say(
    "   another tenant's identify while a tenant polls 16 MiB of faults, then creates ten large organisations…",
  )
  const server = await startMockServer({ seededOrganisations: 0 })
  try {
    const other = await createTenant(server.url)
    const queued = await fillFaultQueue(server.url)
    let bytes = 0
    const polled = await identifyWhile(server.url, other, async () => {
      bytes = await pollFaults(server.url, quick ? 3 : 10)
    })
    figures.push({
      goal: 7,
      name: `another tenant's identify (one sent every 10 ms) while a tenant reads GET /__mock/faults every second (${queued} faults queued, ${mb(bytes)} of JSON): p99 (p50, max; not 200)`,
      measured: `${ms(quantile(polled.times, 0.99))} (${ms(quantile(polled.times, 0.5))}, ${ms(Math.max(...polled.times))}; ${polled.failures})`,
      target: 'p99 < 100 ms, every one 200',
      ratio: quantile(polled.times, 0.99) / 100,
      met: quantile(polled.times, 0.99) < 100 && polled.failures === 0,
    })
    const creating = await identifyWhile(server.url, other, async () => {
      await Promise.all(
        Array.from({ length: 10 }, () => createTenant(server.url, { users: 10_000 })),
      )
    })
    figures.push({
      goal: 7,
      name: "another tenant's identify (one sent every 10 ms) while a tenant creates ten organisations of 10,000 users at once: p99 (p50, max; not 200)",
      measured: `${ms(quantile(creating.times, 0.99))} (${ms(quantile(creating.times, 0.5))}, ${ms(Math.max(...creating.times))}; ${creating.failures})`,
      target: 'p99 < 100 ms, every one 200',
      ratio: quantile(creating.times, 0.99) / 100,
      met: quantile(creating.times, 0.99) < 100 && creating.failures === 0,
    })
  } finally {
    await server.stop()
  }
}

// 8. What a test file pays: importing the package, and a whole vitest suite.
async function importAndSuite() {
  say('\n8. Importing the package…')
  const imported = await importCosts(plan.importRounds)
  pushAgainstFloor(
    8,
    ms,
    {
      name: "`import('msw/node')`, less a bare `node -e 0`",
      value: imported.msw,
      target: 'the msw floor',
    },
    {
      name: "`import('identify-api-mock')`, `createMockApi()`, `ready`, less `node -e 0`",
      value: imported.mock,
      atMost: 2,
      target: '≤ 2 × msw/node',
    },
  )
  // `--base=DIR`: another build (main's, say) measured in turn with this one, for a before/after.
  const base = process.argv.find((a) => a.startsWith('--base='))?.slice('--base='.length)
  const baseDir = base && resolvePath(base)
  say('   where a test file spends its CPU…')
  const phases = (cpu: TestFileCpu) =>
    [cpu.import, cpu.createMockApi, cpu.ready, cpu.resets, cpu.calls]
      .map((value) => ms(value))
      .join(' / ')
  const cpu = baseDir
    ? await testFileCpu(plan.importRounds, baseDir)
    : { this: await testFileCpu(plan.importRounds) }
  figures.push({
    goal: 8,
    name: 'a test file, CPU: import / `createMockApi()` / `ready` / 10 resets / 10 identify calls',
    measured: phases(cpu.this),
    target: 'for context',
  })
  if ('base' in cpu) {
    figures.push({
      goal: 8,
      name: 'the same, the `--base` build',
      measured: phases(cpu.base),
      target: 'for context',
    })
  }
  say('   a vitest suite with the mock, and with one trivial msw handler…')
  const suite = await vitestSuiteCosts(plan.suiteRounds, baseDir || undefined)
  const shape = `${suite.files} files × ${suite.testsPerFile} tests`
  pushAgainstFloor(
    8,
    ms,
    {
      name: `vitest, ${shape}, one trivial msw handler`,
      value: suite.trivial,
      target: 'the msw floor',
    },
    {
      name: `vitest, ${shape}, a mock each, reset after each test`,
      value: suite.mock,
      atMost: 1.2,
      target: '≤ 1.2 × trivial',
    },
  )
  figures.push({
    goal: 8,
    name: `the same two suites, CPU of vitest and its workers: trivial / a mock each`,
    measured: `${ms(suite.trivialCpu)} / ${ms(suite.mockCpu)}`,
    target: 'for context',
    ratio: suite.mockCpu / suite.trivialCpu,
  })
  if (suite.base) {
    figures.push({
      goal: 8,
      name: `the mock's suite over the \`--base\` build: wall time (CPU of vitest and its workers)`,
      measured: `${ms(suite.base.wall)} (${ms(suite.base.cpu)})`,
      target: 'for context',
      ratio: suite.base.cpu / suite.trivialCpu,
    })
  }
  notes.push(
    `Import: each a fresh \`node --input-type=module -e\` in the repository (the package by its name: the built \`dist\`), compile cache off, medians of ${plan.importRounds} interleaved runs, less the median of a bare \`node -e 0\` (${ms(imported.bare)}). A test file's CPU: \`process.cpuUsage\` in a fresh process, \`msw\` and \`msw/node\` imported first, medians of ${plan.importRounds} processes. Vitest: wall time of \`vitest run\` (and the CPU time of vitest and its workers, from bash's \`times\`) over a scratch project with the package in its \`node_modules\`, each test one identify through \`fetch\`, ${plan.suiteRounds} interleaved run(s), medians.`,
  )
}

const sections = [
  throughput,
  flatWithSize,
  inATestSuite,
  startUp,
  memory,
  sustained,
  stateFile,
  importAndSuite,
]
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length)
const started = performance.now()
for (const [i, section] of sections.entries()) {
  if (only && !only.split(',').includes(String(i + 1))) continue
  await section()
}

say(`\n${formatTable(figures)}\n`)
for (const note of notes) say(`- ${note}`)
const missed = figures.filter((f) => f.met === false)
say(
  `\n${figures.filter((f) => f.met).length} goals met, ${missed.length} not met; ${((performance.now() - started) / 60_000).toFixed(1)} minutes.`,
)
