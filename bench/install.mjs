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
import { loadFixturesModule } from "../test/support/load-support.mjs";

const run = promisify(execFile);

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export async function installSection(runs) {
  const { module: support, cleanup } = await loadFixturesModule();
  const fixtures = await support.startFixtures({ log: (line) => process.stderr.write(`bench: fixtures ${line}\n`) });
  const work = await mkdtemp(join(tmpdir(), "gss-bench-install-"));
  const latest = fixtures.releases.at(-1);
  const npmCache = join(work, "npm-cache");
  const clean = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|pnpm_|NODE_OPTIONS$|PI_|GENTLE_)/i.test(k)) clean[k] = v;
  /** One timed install into a fresh HOME from `source` (with ~/.npmrc naming the registry when `npmrc`). */
  const timedInstall = async (name, source, npmrc) => {
    const home = join(work, `${name}-${Math.random().toString(16).slice(2)}`);
    await mkdir(home, { recursive: true });
    if (npmrc) await writeFile(join(home, ".npmrc"), `registry=${fixtures.registryUrl}\n`);
    const t = performance.now();
    await run(fixtures.binary, ["install", "--yes", "--no-modify-path", "--source", source], {
      env: { ...clean, HOME: home },
      cwd: home,
      maxBuffer: 16 << 20,
    });
    const ms = performance.now() - t;
    await rm(home, { recursive: true, force: true });
    return ms;
  };
  const ours = () => timedInstall("home", fixtures.mirrorUrl, true);
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
  const offline = () => timedInstall("offline", bundleDir, false);
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
  const a = [];
  const b = [];
  const c = [];
  const d = [];
  const e = [];
  try {
    await theirs(); // warms the npm cache
    await ours(); // warms the registry's proxy cache and the page cache
    await offline();
    await loopback();
    await extracted();
    for (let i = 0; i < runs; i++) {
      a.push(await ours());
      b.push(await theirs());
      c.push(await offline());
      d.push(await loopback());
      e.push(await extracted());
      process.stderr.write(`bench: install run ${i + 1}/${runs}\n`);
    }
  } finally {
    await fixtures.stop();
    await cleanup();
    await rm(work, { recursive: true, force: true });
  }
  const f = (ms) => `${(ms / 1000).toFixed(2)} s`;
  const ma = median(a);
  const mb = median(b);
  return [
    "## Installing Gentle Shell, against npm install -g",
    "",
    `Release: gentle-pi ${latest.shell} (fixture) with Pi ${latest.pi}, from a local verdaccio registry; medians of ${runs} alternating runs after one warm-up each.`,
    "",
    "| what | median | ours ÷ this |",
    "|---|---|---|",
    `| **ours**: \`gentle-shell-setup install --yes\` into a fresh HOME: Node and pnpm downloaded from the local mirror and verified, \`pnpm install --frozen-lockfile\` with a cold store, launcher written and checked | ${f(ma)} | 1.00× |`,
    `| \`npm install -g\` of the same gentle-pi and Pi into a fresh prefix, warm npm cache, the machine's Node ${process.version} (which cannot run Pi) | ${f(mb)} | ${(ma / mb).toFixed(2)}× |`,
    "",
    `- ours (ms): ${a.map((v) => v.toFixed(0)).join(", ")}`,
    `- npm install -g (ms): ${b.map((v) => v.toFixed(0)).join(", ")}`,
    "",
    "## Installing offline, from a bundle",
    "",
    `The same release from an offline bundle made once by \`gentle-shell-setup bundle\`; medians of ${runs} runs, alternating with the runs above.`,
    "",
    "| what | median | ratio |",
    "|---|---|---|",
    `| **ours offline**: \`install --source <bundle>\` into a fresh HOME: Node and pnpm from the bundle checked against the pins, the signed release, every package tarball checked against the signed lockfile and handed to pnpm from loopback | ${f(median(c))} | ${(median(c) / ma).toFixed(2)}× the online install |`,
    `| package step, ours: the bundle's tarballs from a loopback server, \`pnpm install --frozen-lockfile\`, fresh store | ${f(median(d))} | 1.00× |`,
    `| package step, the store-archive way: \`tar xzf\` of a pnpm store archive, \`pnpm install --offline --frozen-lockfile\` (cannot be checked against the lockfile) | ${f(median(e))} | ${(median(d) / median(e)).toFixed(2)}× ours ÷ this |`,
    "",
    `- ours offline (ms): ${c.map((v) => v.toFixed(0)).join(", ")}`,
    `- package step from loopback (ms): ${d.map((v) => v.toFixed(0)).join(", ")}`,
    `- package step from a store archive (ms): ${e.map((v) => v.toFixed(0)).join(", ")}`,
    "",
  ];
}
