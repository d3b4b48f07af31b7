/**
 * Upgrade, and an install whose pnpm store already holds the release:
 *
 * - ours: `gentle-shell upgrade` through the installed launcher, from the
 *   fixtures' older release to the newest (the signed manifest fetched and
 *   checked, the version installed with pnpm from the store the older one
 *   filled, the launcher checked, `current` switched); against a bare
 *   `pnpm install --frozen-lockfile` of the newest lockfile with a copy of
 *   that same warm store, same registry, same Node.
 * - a fresh install (runtimes downloaded and extracted, no version yet) into
 *   a prefix whose pnpm store already holds every package of the release,
 *   as an earlier install of it left it; against the cold-store install.
 *
 * Each run starts from a copy (`cp -a`, not timed) of a prefix prepared
 * once, at the same path every time, so nothing differs between runs but
 * the machine.
 *
 *   upgradeSection({ fixtures, work, runs, clean }) → Promise<string[]>
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { median, pairedRatio, raw, spread } from "./stats.mjs";

const run = promisify(execFile);
const big = { maxBuffer: 16 << 20 };

export async function upgradeSection({ fixtures, work, runs, clean }) {
  const [older, latest] = [fixtures.releases[0], fixtures.releases.at(-1)];
  const home = join(work, "upgrade-home");
  const upgradeTemplate = join(work, "upgrade-template");
  const storeTemplate = join(work, "store-template");
  const env = { ...clean, HOME: home, SHELL: "/bin/bash" };
  const prefix = join(home, ".gentle-shell");
  const fresh = async () => {
    await rm(home, { recursive: true, force: true });
    await mkdir(home, { recursive: true });
    await writeFile(join(home, ".npmrc"), `registry=${fixtures.registryUrl}\n`);
  };
  const install = (args) => run(fixtures.binary, ["install", "--yes", "--no-setup", "--source", fixtures.mirrorUrl, ...args], { env, cwd: home, ...big });
  // The older release installed: what every upgrade run starts from.
  await fresh();
  await install(["--release", older.shell]);
  await run("cp", ["-a", home, upgradeTemplate]);
  // A prefix holding only the pnpm store an install of the newest release filled.
  await fresh();
  await install(["--release", latest.shell]);
  for (const name of readdirSync(prefix)) if (name !== "pnpm") await rm(join(prefix, name), { recursive: true, force: true });
  for (const name of readdirSync(join(prefix, "pnpm"))) if (name !== "store") await rm(join(prefix, "pnpm", name), { recursive: true, force: true });
  await rm(join(home, ".bashrc"), { force: true });
  await rm(join(home, ".profile"), { force: true });
  await run("cp", ["-a", home, storeTemplate]);

  const from = async (template) => {
    await rm(home, { recursive: true, force: true });
    await run("cp", ["-a", template, home]);
  };
  const timed = async (work) => {
    const t = performance.now();
    await work();
    return performance.now() - t;
  };
  const release = join(fixtures.mirrorRoot, "releases", `v${latest.shell}`);
  const distribution = JSON.parse(readFileSync(join(release, "gentle-shell-distribution.json"), "utf8"));
  /** The published runtime whose folder name starts with `name`, under the prefix being timed. */
  const runtime = (name, ...rest) =>
    join(
      prefix,
      "runtime",
      readdirSync(join(prefix, "runtime")).find((n) => n.startsWith(name)),
      ...rest,
    );
  const node = () => runtime("node-", "bin", "node");
  const pnpmEntry = () => runtime("pnpm-", "package", "bin", "pnpm.mjs");
  const ours = async () => {
    await from(upgradeTemplate);
    const ms = await timed(() => run(join(prefix, "bin", "gentle-shell"), ["upgrade"], { env, cwd: home, ...big }));
    const active = readFileSync(join(prefix, "current", ".gentle-shell-version"), "utf8").trim();
    if (active !== latest.id) throw new Error(`the upgrade left ${active} active, not ${latest.id}`);
    return ms;
  };
  const bare = async () => {
    await from(upgradeTemplate);
    const project = join(work, "bare-project");
    await rm(project, { recursive: true, force: true });
    await mkdir(project, { recursive: true });
    for (const [file, text] of Object.entries(distribution.files)) await writeFile(join(project, file), text);
    await writeFile(join(project, "pnpm-lock.yaml"), readFileSync(join(release, "gentle-shell-distribution-lock.yaml")));
    const pnpmEnv = {
      ...clean,
      HOME: project,
      pnpm_config_registry: fixtures.registryUrl,
      pnpm_config_update_notifier: "false",
      pnpm_config_store_dir: join(prefix, "pnpm", "store"),
    };
    const ms = await timed(() => run(node(), [pnpmEntry(), "install", "--frozen-lockfile"], { cwd: project, env: pnpmEnv, ...big }));
    // The check the upgrade keeps (step 5): the new Pi's own --version, once, right after its install.
    const piRoot = join(project, "node_modules", "@earendil-works", "pi-coding-agent");
    const piBin = JSON.parse(readFileSync(join(piRoot, "package.json"), "utf8")).bin;
    const piCli = join(piRoot, typeof piBin === "string" ? piBin : piBin.pi);
    const piEnv = { ...clean, HOME: project, PI_OFFLINE: "1", PI_TELEMETRY: "0", NODE_COMPILE_CACHE: join(project, ".compile-cache") };
    const piMs = await timed(() => run(node(), [piCli, "--version"], { cwd: project, env: piEnv, ...big }));
    await rm(project, { recursive: true, force: true });
    return { pnpm: ms, pi: piMs };
  };
  const warmStore = async () => {
    await from(storeTemplate);
    return timed(() => install([]));
  };
  const coldStore = async () => {
    await fresh();
    return timed(() => install([]));
  };
  const times = { ours: [], bare: [], barePi: [], warmStore: [], coldStore: [] };
  try {
    await ours();
    await bare();
    await warmStore();
    await coldStore();
    for (let i = 0; i < runs; i++) {
      times.ours.push(await ours());
      const floor = await bare();
      times.bare.push(floor.pnpm);
      times.barePi.push(floor.pi);
      times.warmStore.push(await warmStore());
      times.coldStore.push(await coldStore());
      process.stderr.write(`bench: upgrade run ${i + 1}/${runs}\n`);
    }
  } finally {
    for (const dir of [home, upgradeTemplate, storeTemplate]) await rm(dir, { recursive: true, force: true });
  }
  const x = (a, b) => `${(median(times[a]) / median(times[b])).toFixed(2)}×`;
  // Same-run ratios: each upgrade against the floor run right after it, median (min–max).
  const floor = times.bare.map((t, n) => t + times.barePi[n]);
  const paired = pairedRatio;
  return [
    "## Upgrading, and installing over a store that holds the release",
    "",
    `From gentle-pi ${older.shell} to ${latest.shell} (both with Pi ${latest.pi}); each run starts from a copy of a prefix prepared once (not timed), at the same path. Medians and (min–max) of ${runs} alternating runs after one warm-up each.`,
    "",
    "| what | median (min–max) | ratio |",
    "|---|---|---|",
    `| **ours**: \`gentle-shell upgrade\` through the launcher: the signed manifest fetched and checked, the new version installed with pnpm from the warm store, checked, \`current\` switched, the launcher checked | ${spread(times.ours)} | ${x("ours", "bare")} the bare pnpm install |`,
    `| bare \`pnpm install --frozen-lockfile\` of the new lockfile, a copy of the same warm store, same registry and Node | ${spread(times.bare)} | 1.00×; the upgrade over it run by run: ${paired(times.ours, times.bare)} |`,
    `| the same bare install, then that Pi's own \`--version\` once (the check step 5 keeps; it needs the installed Pi, so it cannot overlap pnpm) | ${spread(floor)} | the upgrade over it run by run: ${paired(times.ours, floor)} |`,
    `| a fresh install (\`install --yes --no-setup\`) into a prefix whose pnpm store already holds the release (runtimes still downloaded and extracted) | ${spread(times.warmStore)} | ${x("warmStore", "coldStore")} the cold-store install |`,
    `| the same install with a cold store | ${spread(times.coldStore)} | 1.00× |`,
    "",
    `- upgrade (ms): ${raw(times.ours)}`,
    `- bare pnpm install, warm store (ms): ${raw(times.bare)}`,
    `- then the new Pi's --version (ms): ${raw(times.barePi)}`,
    `- install, store holding the release (ms): ${raw(times.warmStore)}`,
    `- install, cold store (ms): ${raw(times.coldStore)}`,
    "",
    "Goal (issues 15 and 29): the upgrade at most 1.1× the bare pnpm install, version check and switch included. Since issue 29 the new version's engine is started once for steps 4-6, while pnpm installs it (`serve`: its runtime and Engram then; once pnpm is done, its Pi's --version at the same time as its launcher's check, which no longer starts that Pi again; after the switch, its launcher). What the upgrade cannot overlap is the floor row: pnpm, then the new Pi's own --version, which needs the packages pnpm writes.",
    "",
  ];
}
