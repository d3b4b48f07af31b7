#!/usr/bin/env node
/**
 * npm run bench: acquiring the Node runtime from the local mirror with our
 * code, against the floor of doing the same by hand with curl (or reading the
 * file), sha256sum and tar xzf, measured in the same run on the same archive.
 * Writes bench/results.md. Medians of RUNS runs each (BENCH_RUNS, default 9),
 * taken in alternation so both sides see the same machine state.
 *
 * The archive is the fixture Node archive (test/support/node-archive.ts):
 * the official Node 24.21.0 executable and npm 11.19.0 in the nodejs.org
 * shape. The mirror (test/support/mirror.ts) serves it on 127.0.0.1 from this
 * process; our side runs in a child on our Node 24.21.0, like the installer.
 */
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { mkdtemp, rm, stat, writeFile, mkdir, copyFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { build } from "esbuild";
import { median, spread } from "./stats.mjs";

const benchDir = dirname(fileURLToPath(import.meta.url));
const repo = join(benchDir, "..");
const RUNS = Number(process.env.BENCH_RUNS ?? 9);

async function bundle(entry, outfile, format) {
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format,
    target: "node20",
    outfile,
    logLevel: "warning",
    define: { __GSS_SUPPORT_DIR__: JSON.stringify(join(repo, "test", "support")) },
    banner:
      format === "esm" ? { js: "import { createRequire as __gssRequire } from 'node:module'; const require = __gssRequire(import.meta.url);" } : undefined,
  });
}

const run = promisify(execFile);

/** The mirror lives in this process, so every child is awaited, never run synchronously. */
async function floor(command, work) {
  const dir = join(work, `floor-${Math.random().toString(16).slice(2)}`);
  await mkdir(dir, { recursive: true });
  const started = performance.now();
  await run("sh", ["-c", command(dir)], { maxBuffer: 1024 * 1024 });
  const ms = performance.now() - started;
  await rm(dir, { recursive: true, force: true });
  return ms;
}

async function main() {
  for (const tool of ["curl", "sha256sum", "tar"]) {
    if (spawnSync(tool, ["--version"], { stdio: "ignore" }).status !== 0) throw new Error(`bench needs ${tool} on PATH`);
  }
  const loadBefore = loadavg()[0];
  const work = await mkdtemp(join(tmpdir(), "gss-bench-run-"));
  try {
    await bundle(join(benchDir, "support.ts"), join(work, "support.mjs"), "esm");
    await bundle(join(benchDir, "acquire.ts"), join(work, "acquire.cjs"), "cjs");
    const support = await import(pathToFileURL(join(work, "support.mjs")).href);
    const toolchain = await import(pathToFileURL(join(repo, "build", "toolchain.mjs")).href);
    const node24 = await toolchain.ensureNodeBinary();
    const archive = await support.ensureNodeArchive();
    const root = join(work, "mirror");
    await mkdir(dirname(join(root, archive.path)), { recursive: true });
    await copyFile(archive.file, join(root, archive.path));
    const pins = support.benchPins(archive);
    const mirror = await support.startMirror({ root });
    const url = `${mirror.url}/${archive.path}`;
    const local = join(root, archive.path);
    const top = `node-v24.21.0-linux-x64`;
    const curlFloor = (dir) => `curl -sSf -o "${dir}/a.tar.gz" "${url}" && sha256sum "${dir}/a.tar.gz" >/dev/null && tar xzf "${dir}/a.tar.gz" -C "${dir}"`;
    const readFloor = (dir) => `sha256sum "${local}" >/dev/null && tar xzf "${local}" -C "${dir}"`;
    const selectiveFloor = (dir) =>
      `curl -sSf -o "${dir}/a.tar.gz" "${url}" && sha256sum "${dir}/a.tar.gz" >/dev/null && tar xzf "${dir}/a.tar.gz" -C "${dir}" "${top}/bin/node" "${top}/lib/node_modules/npm" "${top}/LICENSE"`;
    const ours = [];
    const floors = { curl: [], read: [], selective: [] };
    const oneOurs = async () => {
      const r = await run(node24, [join(work, "acquire.cjs"), JSON.stringify({ base: mirror.url, pins, runs: 1 })], { encoding: "utf8" }).catch((error) => {
        throw new Error(`our acquisition failed:\n${error.stderr ?? error.message}`);
      });
      return JSON.parse(r.stdout.trim())[0];
    };
    // One warm-up of each (page cache, first connection), not counted.
    await oneOurs();
    await floor(curlFloor, work);
    for (let i = 0; i < RUNS; i++) {
      ours.push(await oneOurs());
      floors.curl.push(await floor(curlFloor, work));
      floors.read.push(await floor(readFloor, work));
      floors.selective.push(await floor(selectiveFloor, work));
      process.stderr.write(`bench: run ${i + 1}/${RUNS}\n`);
    }
    const { profileSection } = await import("./profile.mjs");
    const profiled = await profileSection({ node24, acquire: [join(work, "acquire.cjs"), JSON.stringify({ base: mirror.url, pins, runs: 1 })], work, repo });
    await mirror.stop();
    const size = (await stat(local)).size;
    const m = { ours: median(ours), curl: median(floors.curl), read: median(floors.read), selective: median(floors.selective) };
    const x = (a, b) => `${(a / b).toFixed(2)}×`;
    const tarVersion = execFileSync("tar", ["--version"], { encoding: "utf8" }).split("\n")[0];
    const curlVersion = execFileSync("curl", ["--version"], { encoding: "utf8" }).split(" ").slice(0, 2).join(" ");
    const lines = [
      "# Benchmarks",
      "",
      "Written by `npm run bench` (bench/run.mjs); every figure below comes from the same run.",
      "",
      "## Acquiring the Node runtime from the local mirror",
      "",
      `Archive: the fixture \`${archive.path}\` (official Node 24.21.0 executable and npm 11.19.0 in the nodejs.org shape), ${(size / 1024 / 1024).toFixed(1)} MiB, served by the artifact mirror on 127.0.0.1.`,
      `Medians of ${RUNS} runs each, taken in alternation after one warm-up.`,
      "",
      "| what | median (min–max) | ours ÷ this |",
      "|---|---|---|",
      `| **ours**: \`ensureRuntimes\` (Node only) on Node 24.21.0: verified download hashed while streaming, extraction of node, npm and the licence, \`node --version\`, \`npm-cli.js --version\`, marker, rename, npm entry | ${spread(ours)} | 1.00× |`,
      `| floor: \`curl -o\` + \`sha256sum\` + \`tar xzf\` (whole archive) | ${spread(floors.curl)} | ${x(m.ours, m.curl)} |`,
      `| floor: \`curl -o\` + \`sha256sum\` + \`tar xzf\` of only bin/node, lib/node_modules/npm, LICENSE | ${spread(floors.selective)} | ${x(m.ours, m.selective)} |`,
      `| floor: read the local file: \`sha256sum\` + \`tar xzf\` (no network) | ${spread(floors.read)} | ${x(m.ours, m.read)} |`,
      "",
      "Each run, all runs (ms):",
      "",
      `- ours: ${ours.map((v) => v.toFixed(0)).join(", ")}`,
      `- curl + sha256sum + tar xzf: ${floors.curl.map((v) => v.toFixed(0)).join(", ")}`,
      `- curl + sha256sum + selective tar xzf: ${floors.selective.map((v) => v.toFixed(0)).join(", ")}`,
      `- sha256sum + tar xzf: ${floors.read.map((v) => v.toFixed(0)).join(", ")}`,
      "",
      "Ours also runs two child processes (node and npm version checks, which start npm) that the floor does not;",
      "the floor does not verify anything against a pin, write a marker or publish with a rename.",
      "",
      `Machine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${process.platform}-${process.arch}; ${tarVersion}; ${curlVersion}; runner Node ${process.version}, ours on Node 24.21.0. Load average (1 min) ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after: other work on the machine is not stopped, so compare the ratios, not the absolute times. Nothing else of this project's (no test run, no helper) ran during the bench.`,
      "",
    ];
    lines.push(...profiled);
    const { installSection } = await import("./install.mjs");
    lines.push(...(await installSection(Number(process.env.BENCH_INSTALL_RUNS ?? 5))));
    // The suite's wall time comes from its own recorded run (bench/suite.mjs), not from a run inside the bench.
    const { suiteSection } = await import("./suite.mjs");
    lines.push(...(await suiteSection()));
    await writeFile(join(benchDir, "results.md"), lines.join("\n"));
    process.stdout.write(lines.join("\n"));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack ?? error}\n`);
  process.exit(1);
});
