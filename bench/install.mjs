/**
 * The whole install against the alternative a user without us would run:
 * ours is `gentle-shell-setup install` into a fresh HOME from the local
 * fixtures (our Node and pnpm downloaded and verified, gentle-pi and Pi
 * installed from the release lockfile with a cold pnpm store, launcher
 * checked); theirs is `npm install -g` of the same gentle-pi and Pi into a
 * fresh prefix with a warm npm cache, on the machine's own Node and npm.
 * Both use the same local registry; medians of alternating runs.
 *
 * Offline: `install --source <bundle>` from a bundle made once (runtimes
 * from the bundle, every package tarball checked against the signed
 * lockfile, then handed to pnpm by a loopback registry), against the online
 * install; and the package step alone, the bundle's tarballs served from
 * loopback against the store-archive way bundles used to work (`tar xzf` of
 * a pnpm store archive, then `pnpm install --offline`).
 */
import { execFile } from "node:child_process";
import { createReadStream, existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { promisify } from "node:util";
import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { loadFixturesModule } from "../test/support/load-support.mjs";
import { floorTimes, runtimeArchives, STEP_ROWS } from "./steps.mjs";
import { stepChart } from "./svg.mjs";
import { launchSection } from "./launch.mjs";
import { scaleSection, timedInstaller } from "./scale.mjs";
import { median, pairedRatio, raw, spread } from "./stats.mjs";
import { upgradeSection } from "./upgrade.mjs";

const run = promisify(execFile);

/** How the registry is held still during the bench (also in bench/results.md). */
export const REGISTRY_METHOD =
  "The registry serves a fixed snapshot for the whole bench: the fixtures start with `frozenRegistry` (test/support/registry.ts), which gives verdaccio's uplink a `maxage` of 3650 days, so every package document already in the shared proxy cache is served as it is, and no uplink refresh lands between timed runs. A package the cache does not hold yet is fetched once, during the warm-up runs, which are not counted.";

export async function installSection(runs) {
  const { module: support, cleanup } = await loadFixturesModule();
  // A fixed registry snapshot for the whole run: no uplink refresh between timed runs (test/support/registry.ts).
  const fixtures = await support.startFixtures({ frozenRegistry: true, log: (line) => process.stderr.write(`bench: fixtures ${line}\n`) });
  const work = await mkdtemp(join(tmpdir(), "gss-bench-install-"));
  const latest = fixtures.releases.at(-1);
  const npmCache = join(work, "npm-cache");
  const clean = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|pnpm_|NODE_OPTIONS$|PI_|GENTLE_)/i.test(k)) clean[k] = v;
  /** One timed install into a fresh HOME from `source` (with ~/.npmrc naming the registry when `npmrc`), with its step marks. */
  const timedInstall = timedInstaller(fixtures, work);
  const stepsOf = [];
  const ours = async () => {
    const { ms, steps } = await timedInstall("home", fixtures.mirrorUrl, true);
    stepsOf.push(steps);
    return ms;
  };
  const theirs = async () => {
    const prefix = join(work, `npm-prefix-${Math.random().toString(16).slice(2)}`);
    const t = performance.now();
    await run(
      "npm",
      [
        "install",
        "--global",
        "--prefix",
        prefix,
        "--cache",
        npmCache,
        "--registry",
        fixtures.registryUrl,
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        `@earendil-works/pi-coding-agent@${latest.pi}`,
        `gentle-pi@${latest.shell}`,
      ],
      { env: clean, maxBuffer: 16 << 20 },
    );
    const ms = performance.now() - t;
    await rm(prefix, { recursive: true, force: true });
    return ms;
  };
  // The offline bundle, made once by the fixture binary.
  const bundleDir = join(work, "bundle");
  const maker = join(work, "maker");
  await mkdir(maker, { recursive: true });
  await writeFile(join(maker, ".npmrc"), `registry=${fixtures.registryUrl}\n`);
  await run(fixtures.binary, ["bundle", "--out", bundleDir, "--source", fixtures.mirrorUrl, "--release", latest.shell], {
    env: { ...clean, HOME: maker },
    maxBuffer: 16 << 20,
  });
  const offline = async () => (await timedInstall("offline", bundleDir, false)).ms;
  // The package step alone: the same project, lockfile and pnpm, a fresh store each run.
  const release = join(bundleDir, "releases", `v${latest.shell}`);
  const distribution = JSON.parse(readFileSync(join(release, "gentle-shell-distribution.json"), "utf8"));
  const project = async (name) => {
    const dir = join(work, `${name}-${Math.random().toString(16).slice(2)}`);
    await mkdir(dir, { recursive: true });
    for (const [file, text] of Object.entries(distribution.files)) await writeFile(join(dir, file), text);
    await writeFile(join(dir, "pnpm-lock.yaml"), readFileSync(join(release, "gentle-shell-distribution-lock.yaml")));
    return dir;
  };
  const pnpmEnv = (dir, registry) => ({
    ...clean,
    HOME: dir,
    pnpm_config_registry: registry,
    pnpm_config_update_notifier: "false",
    pnpm_config_store_dir: join(dir, "store"),
  });
  const pnpm = (dir, args, registry) =>
    run(fixtures.node, [fixtures.pnpmEntry, "install", "--frozen-lockfile", ...args], { cwd: dir, env: pnpmEnv(dir, registry), maxBuffer: 16 << 20 });
  const loopback = async () => {
    const dir = await project("loopback");
    const server = createServer((req, res) => {
      const file = join(bundleDir, "packages", decodeURIComponent(req.url.split("?")[0]));
      if (!existsSync(file)) return void res.writeHead(404).end();
      res.writeHead(200);
      createReadStream(file).pipe(res);
    });
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    const t = performance.now();
    await pnpm(dir, [], `http://127.0.0.1:${server.address().port}/`);
    const ms = performance.now() - t;
    server.close();
    await rm(dir, { recursive: true, force: true });
    return ms;
  };
  // The store archive, made once from the same lockfile with pnpm fetch (as bundles used to carry it).
  const archiveDir = await project("store-archive");
  await run(fixtures.node, [fixtures.pnpmEntry, "fetch"], { cwd: archiveDir, env: pnpmEnv(archiveDir, fixtures.registryUrl), maxBuffer: 16 << 20 });
  const storeArchive = join(work, "pnpm-store.tar.gz");
  await run("tar", ["czf", storeArchive, "-C", join(archiveDir, "store"), "."]);
  const extracted = async () => {
    const dir = await project("extracted");
    const t = performance.now();
    await mkdir(join(dir, "store"));
    await run("tar", ["xzf", storeArchive, "-C", join(dir, "store")]);
    await pnpm(dir, ["--offline"], "http://127.0.0.1:9/");
    const ms = performance.now() - t;
    await rm(dir, { recursive: true, force: true });
    return ms;
  };
  const floorsOf = [];
  const floors = () =>
    floorTimes({
      work,
      mirrorUrl: fixtures.mirrorUrl,
      mirrorRoot: fixtures.mirrorRoot,
      archives: runtimeArchives(fixtures.mirrorRoot),
      node: fixtures.node,
      pnpm: (dir) => pnpm(dir, [], fixtures.registryUrl),
      project,
    });
  const a = [];
  const b = [];
  const c = [];
  const d = [];
  const e = [];
  const more = [];
  try {
    await theirs(); // warms the npm cache
    await ours(); // warms the registry's proxy cache and the page cache
    await offline();
    await loopback();
    await extracted();
    await floors();
    stepsOf.length = 0;
    for (let i = 0; i < runs; i++) {
      // The online and the offline install side by side, each after the disk has written back what ran before it
      // (npm install -g leaves much to write), and in turn first: their ratio is taken run by run.
      const pair = [async () => a.push(await ours()), async () => c.push(await offline())];
      for (const timedRun of i % 2 ? pair.reverse() : pair) {
        await run("sync", []);
        await timedRun();
      }
      floorsOf.push(await floors());
      b.push(await theirs());
      d.push(await loopback());
      e.push(await extracted());
      process.stderr.write(`bench: install run ${i + 1}/${runs}\n`);
    }
    // The same fixtures and registry snapshot for the sections that follow.
    more.push(...(await upgradeSection({ fixtures, work, runs, clean })));
    more.push(...(await launchSection({ fixtures, support, work, runs: Math.max(runs, 3 * runs), clean })));
    more.push(...(await scaleSection({ fixtures, work, runs, timedInstall })));
  } finally {
    await fixtures.stop();
    await cleanup();
    await rm(work, { recursive: true, force: true });
  }
  const f = (ms) => `${(ms / 1000).toFixed(2)} s`;
  const ma = median(a);
  const mb = median(b);
  const stepLines = await stepSection({ stepsOf, floorsOf, ours: ma, npm: mb, runs, f, latest });
  return [
    "## Installing Gentle Shell, against npm install -g",
    "",
    `Release: gentle-pi ${latest.shell} (fixture) with Pi ${latest.pi}, from a local verdaccio registry; medians and (min–max) of ${runs} alternating runs after one warm-up each.`,
    "",
    REGISTRY_METHOD,
    "",
    "| what | median (min–max) | ours ÷ this |",
    "|---|---|---|",
    `| **ours**: \`gentle-shell-setup install --yes\` into a fresh HOME: Node and pnpm downloaded from the local mirror and verified, \`pnpm install --frozen-lockfile\` with a cold store, launcher written and checked, PATH entry written into the scratch HOME's startup files, setup | ${spread(a)} | 1.00× |`,
    `| \`npm install -g\` of the same gentle-pi and Pi into a fresh prefix, warm npm cache, the machine's Node ${process.version} (which cannot run Pi) | ${spread(b)} | ${(ma / mb).toFixed(2)}× |`,
    `| ours without its setup step (gentle-shell setup, which npm install -g has no counterpart for) | ${spread(a.map((ms, i) => ms - stepsOf[i].setup))} | ${(median(a.map((ms, i) => ms - stepsOf[i].setup)) / mb).toFixed(2)}× |`,
    "",
    `- ours (ms): ${raw(a)}`,
    `- npm install -g (ms): ${raw(b)}`,
    "",
    ...stepLines,
    "## Installing offline, from a bundle",
    "",
    `The same release from an offline bundle made once by \`gentle-shell-setup bundle\`; medians and (min–max) of ${runs} runs. Each offline install runs right beside an online one (first in every other pair), each after \`sync\`, and their ratio is taken run by run: median (min–max).`,
    "",
    "| what | median (min–max) | ratio |",
    "|---|---|---|",
    `| **ours offline**: \`install --source <bundle>\` into a fresh HOME: Node and pnpm from the bundle checked against the pins, the signed release, every package tarball checked against the signed lockfile and handed to pnpm from loopback | ${spread(c)} | ${pairedRatio(c, a)} the online install beside it |`,
    `| package step, ours: the bundle's tarballs from a loopback server, \`pnpm install --frozen-lockfile\`, fresh store | ${spread(d)} | 1.00× |`,
    `| package step, the store-archive way: \`tar xzf\` of a pnpm store archive, \`pnpm install --offline --frozen-lockfile\` (cannot be checked against the lockfile) | ${spread(e)} | ${(median(d) / median(e)).toFixed(2)}× ours ÷ this |`,
    "",
    `- ours offline (ms): ${raw(c)}`,
    `- package step from loopback (ms): ${raw(d)}`,
    `- package step from a store archive (ms): ${raw(e)}`,
    "",
    ...more,
  ];
}

/** The step breakdown: each step's median beside its floor's, from the same runs; also bench/install-steps.svg. */
async function stepSection({ stepsOf, floorsOf, ours, npm, runs, f, latest }) {
  const rows = STEP_ROWS.map((row) => {
    const mine = median(stepsOf.map((s) => s[row.key]));
    const floor = row.floor ? median(floorsOf.map((s) => s[row.key])) : null;
    const oursAll = stepsOf.map((s) => s[row.key]);
    const floorAll = row.floor ? floorsOf.map((s) => s[row.key]) : null;
    return { ...row, ours: mine, floorMs: floor, oursText: spread(oursAll), floorText: floorAll ? spread(floorAll) : "–" };
  });
  const floorSum = rows.reduce((sum, r) => sum + (r.floorMs ?? 0), 0);
  const svg = stepChart({
    title: `Fresh install, step by step: gentle-pi ${latest.shell} with Pi ${latest.pi}, medians of ${runs} runs`,
    note: "Floors: the least each step could cost, done by hand in the same run (bench/results.md says how).",
    steps: rows.map((r) => ({ label: r.label, ours: r.ours, floor: r.floorMs })),
    totals: [
      { label: "ours, whole install", ms: ours, kind: "ours" },
      { label: "sum of the floors", ms: floorSum, kind: "floor" },
      { label: "npm install -g", ms: npm, kind: "other" },
    ],
  });
  await writeFile(fileURLToPath(new URL("install-steps.svg", import.meta.url)), svg);
  return [
    "## A fresh install, step by step",
    "",
    `Each step's median over the ${runs} online installs above (the installer's own step marks, GSS_STEP_TIMES), beside the median of its floor: the least that step could cost, done by hand in the same run, alternating with the installs. The runtime step is split where its last archive (Node, pnpm, Engram, downloading at once) finished downloading and verifying: what follows is extraction and checks. Chart: [install-steps.svg](install-steps.svg).`,
    "",
    "| step | ours, median (min–max) | floor, median (min–max) | ours ÷ floor | the floor does |",
    "|---|---|---|---|---|",
    ...rows.map(
      (r) => `| ${r.label} | ${r.oursText} | ${r.floorText} | ${r.floorMs ? `${(r.ours / r.floorMs).toFixed(2)}×` : "–"} | ${r.floor ?? "no floor measured"} |`,
    ),
    `| **whole install** | ${f(ours)} | ${f(floorSum)} (sum) | ${(ours / floorSum).toFixed(2)}× | |`,
    "",
  ];
}
