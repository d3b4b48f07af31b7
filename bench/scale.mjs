/**
 * How a fresh install grows with the release's size: the normal fixture
 * release (the fixtures' newest, gentle-pi 4.1.0 with Pi 1.6.0) against a
 * heavy one (gentle-pi 4.2.0 pinning a heavier dependency set, about ten
 * times the lockfile's packages; test/support/heavy-release.ts), both
 * installed the same way from one source folder, with the same engine.
 *
 *   scaleSection({ fixtures, work, runs, timedInstall? }) → Promise<string[]>
 *
 * - fixtures: what startFixtures({ frozenRegistry: true }) returned (its
 *   registry, mirrorRoot, registryUrl, pins, node, pnpmEntry, binary,
 *   releases); the heavy gentle-pi is published into its registry (tag
 *   `bench-heavy`, so `latest` does not move).
 * - work: a scratch folder of the caller's; this makes and removes its own
 *   `scale` folder inside it.
 * - runs: timed runs of each release, alternating, after one warm-up each.
 * - timedInstall (optional): `(name, source, npmrc, args) → { ms, steps }`, one
 *   `install --yes --source <source> ...args` into a fresh HOME (with
 *   ~/.npmrc naming the registry when `npmrc`), `steps` from
 *   bench/steps.mjs stepTimes; by default the one below, which does just that.
 *
 * Returns markdown lines: a heading, a table (median and min–max of the whole
 * install and of its pnpm step, the lockfile's package count, each ratio heavy
 * ÷ normal) and the raw times.
 *
 * Alone: `node bench/scale.mjs` starts the fixtures, runs this with
 * BENCH_RUNS runs (default 1) and prints the lines.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { loadFixturesModule } from "../test/support/load-support.mjs";
import { median } from "./stats.mjs";
import { stepTimes } from "./steps.mjs";

const run = promisify(execFile);

/** The environment minus npm, pnpm, Pi and Gentle settings of the bench's own parent (as bench/install.mjs). */
function cleanEnv() {
  const clean = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|pnpm_|NODE_OPTIONS$|PI_|GENTLE_)/i.test(k)) clean[k] = v;
  return clean;
}

/**
 * One timed install into a fresh HOME: `(name, source, npmrc, args) → { ms, steps }`,
 * `install --yes --source <source> ...args` (with ~/.npmrc naming the registry when
 * `npmrc`), its step marks read back (bench/steps.mjs). bench/install.mjs uses it too.
 */
export function timedInstaller(fixtures, work) {
  const clean = cleanEnv();
  return async (name, source, npmrc, args = []) => {
    const tag = `${name}-${Math.random().toString(16).slice(2)}`;
    const home = join(work, tag);
    await mkdir(home, { recursive: true });
    if (npmrc) await writeFile(join(home, ".npmrc"), `registry=${fixtures.registryUrl}\n`);
    const marks = join(work, `${tag}.marks`);
    const t = performance.now();
    await run(fixtures.binary, ["install", "--yes", "--source", source, ...args], {
      env: { ...clean, HOME: home, SHELL: "/bin/bash", GSS_STEP_TIMES: marks },
      cwd: home,
      maxBuffer: 16 << 20,
    });
    const ms = performance.now() - t;
    const steps = stepTimes(readFileSync(marks, "utf8"));
    await rm(home, { recursive: true, force: true });
    await rm(marks, { force: true });
    return { ms, steps };
  };
}

export async function scaleSection({ fixtures, work, runs, timedInstall }) {
  const scratch = join(work, "scale");
  await mkdir(scratch, { recursive: true });
  const { module: heavyModule, cleanup } = await loadFixturesModule("heavy-release.ts");
  const normalRelease = fixtures.releases.at(-1);
  const install = timedInstall ?? timedInstaller(fixtures, scratch);
  const times = { normal: [], heavy: [] };
  let source;
  try {
    source = await heavyModule.heavyReleaseSource(fixtures, { normal: { shell: normalRelease.shell, pi: normalRelease.pi }, scratch });
    const once = (which) => install(which, source.root, true, ["--release", source[which].shell]);
    // Warm-ups, not counted: the registry's proxy cache (the heavy set's tarballs on a first bench) and the page cache.
    await once("normal");
    await once("heavy");
    for (let i = 0; i < runs; i++) {
      for (const which of ["normal", "heavy"]) {
        const { ms, steps } = await once(which);
        times[which].push({ ms, pnpm: steps.pnpm });
      }
      process.stderr.write(`bench: scale run ${i + 1}/${runs}\n`);
    }
  } finally {
    await cleanup();
    await rm(scratch, { recursive: true, force: true });
  }
  return scaleLines({ source, times, runs });
}

function scaleLines({ source, times, runs }) {
  const f = (ms) => `${(ms / 1000).toFixed(2)} s`;
  const stat = (list, key) => {
    const values = list.map((t) => t[key]);
    return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
  };
  const cell = (s) => `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
  const n = { all: stat(times.normal, "ms"), pnpm: stat(times.normal, "pnpm") };
  const h = { all: stat(times.heavy, "ms"), pnpm: stat(times.heavy, "pnpm") };
  const { normal, heavy } = source;
  const extra = heavy.packages - normal.packages;
  const perPackage = (h.all.median - n.all.median) / extra;
  return [
    "## Scale: a release ten times larger",
    "",
    `A fresh install of the normal fixture release against a heavy one whose lockfile pins about ten times the packages: gentle-pi ${heavy.shell} (fixture), the same fixture gentle-pi with a heavier set of well-known pure-JS packages (test/support/heavy-release.ts), with the same Pi ${heavy.pi} and the same engine. Both from one source folder (the mirror's runtimes, both signed releases), \`install --yes --source <folder> --release <version>\` into a fresh HOME whose ~/.npmrc names the fixture registry, cold pnpm store; medians (min–max) of ${runs} alternating runs after one warm-up each.`,
    "",
    "| release | packages in the lockfile | whole install | pnpm step |",
    "|---|---|---|---|",
    `| normal: gentle-pi ${normal.shell} with Pi ${normal.pi} | ${normal.packages} | ${cell(n.all)} | ${cell(n.pnpm)} |`,
    `| heavy: gentle-pi ${heavy.shell} with Pi ${heavy.pi} | ${heavy.packages} | ${cell(h.all)} | ${cell(h.pnpm)} |`,
    `| **heavy ÷ normal** | ${(heavy.packages / normal.packages).toFixed(2)}× | ${(h.all.median / n.all.median).toFixed(2)}× | ${(h.pnpm.median / n.pnpm.median).toFixed(2)}× |`,
    "",
    `Each package beyond the normal release's adds about ${perPackage.toFixed(1)} ms to the whole install (difference of the medians ÷ ${extra} more packages).`,
    "",
    `- normal (ms, whole / pnpm): ${times.normal.map((t) => `${t.ms.toFixed(0)} / ${t.pnpm.toFixed(0)}`).join(", ")}`,
    `- heavy (ms, whole / pnpm): ${times.heavy.map((t) => `${t.ms.toFixed(0)} / ${t.pnpm.toFixed(0)}`).join(", ")}`,
    "",
  ];
}

async function main() {
  const runs = Number(process.env.BENCH_RUNS ?? 1);
  const { module: support, cleanup } = await loadFixturesModule();
  const fixtures = await support.startFixtures({ frozenRegistry: true, log: (line) => process.stderr.write(`bench: fixtures ${line}\n`) });
  const work = await mkdtemp(join(tmpdir(), "gss-bench-scale-"));
  try {
    if (!fixtures.binary) throw new Error("the scale bench needs the fixture binary (unset GSS_FIXTURES_SKIP_BUILD)");
    const lines = await scaleSection({ fixtures, work, runs });
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    await fixtures.stop();
    await cleanup();
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  });
}
