/**
 * The whole install against the alternative a user without us would run:
 * ours is `gentle-shell-setup install` into a fresh HOME from the local
 * fixtures (our Node and pnpm downloaded and verified, gentle-pi and Pi
 * installed from the release lockfile with a cold pnpm store, launcher
 * checked); theirs is `npm install -g` of the same gentle-pi and Pi into a
 * fresh prefix with a warm npm cache, on the machine's own Node and npm.
 * Both use the same local registry; medians of alternating runs.
 */
import { execFile } from "node:child_process";
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
  const ours = async () => {
    const home = join(work, `home-${Math.random().toString(16).slice(2)}`);
    await mkdir(home, { recursive: true });
    await writeFile(join(home, ".npmrc"), `registry=${fixtures.registryUrl}\n`);
    const t = performance.now();
    await run(fixtures.binary, ["install", "--yes", "--no-modify-path", "--source", fixtures.mirrorUrl], {
      env: { ...clean, HOME: home },
      cwd: home,
      maxBuffer: 16 << 20,
    });
    const ms = performance.now() - t;
    await rm(home, { recursive: true, force: true });
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
  const a = [];
  const b = [];
  try {
    await theirs(); // warms the npm cache
    await ours(); // warms the registry's proxy cache and the page cache
    for (let i = 0; i < runs; i++) {
      a.push(await ours());
      b.push(await theirs());
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
  ];
}
