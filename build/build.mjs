/**
 * npm run build [-- --target <target>|all] [--pins <file.json>] [--out <dir>]
 *
 * 1. esbuild bundles src/main.ts into ONE CommonJS script,
 *    <out>/gentle-shell-setup.cjs (build/bundle.mjs). A single-executable's main script can only
 *    `require` built-ins, so everything else is inside it.
 * 2. The pinned Node 24.21.0 of the build host turns it into a SEA blob
 *    (settings from ../sea-config.json): the script is its engine.cjs
 *    asset, and its main script is src/sea/main.ts, which answers --version
 *    and the top-level help from texts rendered here by the installer's own
 *    code (so they never parse the full script) and runs the asset for
 *    anything else. The blob has no code cache and no snapshot, so the same
 *    blob is valid for every target.
 * 3. For each target, postject injects the blob into a copy of that target's
 *    pinned, verified Node 24.21.0 (build/toolchain.mjs):
 *    <out>/gentle-shell-setup-<target>[.exe].
 * 4. <out>/SHA256SUMS lists every binary in <out>.
 *
 * `--pins <file.json>` makes a test build: an esbuild plugin replaces
 * src/pins/compiled.ts with a module exporting that JSON as `compiledPins`.
 * This is the only way to change the pins a binary enforces; nothing at run
 * time can.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs/promises";
import { createReadStream } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { ensureNodeBinary, hostTarget } from "./toolchain.mjs";
import { bundleEngine, bundleSeaMain, cleanEnv, readFixturePins, seaTexts } from "./bundle.mjs";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

export const TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win-x64", "win-arm64"];
export const SCRIPT_NAME = "gentle-shell-setup.cjs";
/** The single executable's own main script: answers --version and the top help, else runs SCRIPT_NAME's bytes (its engine.cjs asset). */
const SEA_MAIN_NAME = "gentle-shell-setup-main.cjs";
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/** File name of the single executable for a target. */
export function binaryName(target) {
  return `gentle-shell-setup-${target}${target.startsWith("win-") ? ".exe" : ""}`;
}

function log(message) {
  process.stderr.write(`build: ${message}\n`);
}

/**
 * Build the script and the single executables.
 * @param {{ targets?: string[], pins?: string, out?: string }} options
 */
export async function build(options = {}) {
  const started = Date.now();
  const out = path.resolve(options.out ?? path.join(REPO_ROOT, "dist"));
  const targets = options.targets ?? [hostTarget()];
  for (const target of targets) {
    if (!TARGETS.includes(target)) throw new Error(`unknown target ${target} (expected ${TARGETS.join(", ")} or all)`);
  }
  const fixturePins = options.pins ? await readFixturePins(options.pins) : null;
  await fs.mkdir(out, { recursive: true });

  // Every Node first, so a missing one (offline darwin archive) fails before
  // anything is written.
  const host = hostTarget();
  const nodes = new Map();
  for (const target of new Set([host, ...targets])) {
    nodes.set(target, await ensureNodeBinary(target));
  }

  const script = path.join(out, SCRIPT_NAME);
  await bundleEngine(script, fixturePins);
  log(`bundled ${path.relative(process.cwd(), script) || script}${fixturePins ? ` (fixture pins from ${options.pins})` : ""}`);

  const work = await fs.mkdtemp(path.join(tmpdir(), "gss-build-"));
  try {
    const main = path.join(work, SEA_MAIN_NAME);
    await bundleSeaMain(main, await seaTexts(fixturePins, undefined, work));
    const blob = await seaBlob(nodes.get(host), main, script, work);
    for (const target of targets) {
      const file = await injectBinary(nodes.get(target), target, blob, out);
      log(`wrote ${path.relative(process.cwd(), file) || file}`);
    }
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
  const sums = await writeSums(out);
  log(`wrote ${path.relative(process.cwd(), sums) || sums} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { out, script, binaries: targets.map((t) => path.join(out, binaryName(t))), sums };
}

/**
 * Only the engine script (step 1), for a test build: the fixture releases
 * publish it as their engine. `version` gives a fixture release an engine
 * that is observably not the running one (a test build only).
 * @param {{ pins: string, outfile: string, version?: string }} options
 */
export async function buildEngineScript(options) {
  const fixturePins = await readFixturePins(options.pins);
  await fs.mkdir(path.dirname(options.outfile), { recursive: true });
  await bundleEngine(options.outfile, fixturePins, options.version);
  return options.outfile;
}

/**
 * The SEA blob, made by the host's pinned Node from a config derived from
 * sea-config.json: `main` (src/sea/main.ts) is its main script, `script` (the
 * installer) its engine.cjs asset.
 */
async function seaBlob(hostNode, main, script, work) {
  const base = JSON.parse(await fs.readFile(path.join(REPO_ROOT, "sea-config.json"), "utf8"));
  if (base.disableExperimentalSEAWarning !== true || base.execArgvExtension !== "none") {
    throw new Error('sea-config.json must keep "disableExperimentalSEAWarning": true and "execArgvExtension": "none"');
  }
  if (base.useSnapshot || base.useCodeCache) {
    throw new Error("sea-config.json: useSnapshot/useCodeCache only work for a blob built on its target platform");
  }
  // Relative names inside the work folder: the blob records the main script's name, so the same
  // commit gives the same bytes whatever folder it is built in (reproducible builds).
  const blob = path.join(work, "sea.blob");
  await fs.copyFile(script, path.join(work, SCRIPT_NAME));
  if (path.resolve(main) !== path.join(work, SEA_MAIN_NAME)) await fs.copyFile(main, path.join(work, SEA_MAIN_NAME));
  const config = {
    ...base,
    main: SEA_MAIN_NAME,
    output: "sea.blob",
    assets: { ...base.assets, "engine.cjs": SCRIPT_NAME },
  };
  const configFile = path.join(work, "sea-config.json");
  await fs.writeFile(configFile, JSON.stringify(config, null, 2));
  const run = spawnSync(hostNode, ["--experimental-sea-config", configFile], { cwd: work, env: cleanEnv(), encoding: "utf8" });
  if (run.status !== 0) {
    throw new Error(`node --experimental-sea-config failed (exit ${run.status}): ${run.stderr || run.error?.message}`);
  }
  return blob;
}

function hasCommand(name) {
  return spawnSync(name, ["--help"], { stdio: "ignore" }).error === undefined;
}

/** `blob` is the path of the SEA blob. */
async function injectBinary(node, target, blob, out) {
  const final = path.join(out, binaryName(target));
  const temp = `${final}.tmp-${process.pid}`;
  await fs.rm(temp, { force: true });
  await fs.copyFile(node, temp);
  await fs.chmod(temp, 0o755);
  const darwin = target.startsWith("darwin-");
  const codesign = darwin && process.platform === "darwin" && hasCommand("codesign");
  try {
    if (codesign) {
      const removed = spawnSync("codesign", ["--remove-signature", temp], { encoding: "utf8" });
      if (removed.status !== 0) throw new Error(`codesign --remove-signature: ${removed.stderr}`);
    }
    // One process per injection: postject's WebAssembly memory only grows,
    // and six 100 MB executables in one process would keep all of it.
    const args = [require.resolve("postject/dist/cli.js"), temp, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SEA_FUSE];
    if (darwin) args.push("--macho-segment-name", "NODE_SEA");
    const injected = spawnSync(process.execPath, args, { encoding: "utf8" });
    // ".note.100" warnings are harmless (measured); anything else is shown.
    const noise = /^warning: Can't find string offset for section name '\.note(\.100)?'$|Injection done|^Start injection of |^\s*$/;
    const said = `${injected.stdout}\n${injected.stderr}`.split("\n").filter((l) => !noise.test(l.replace(/\x1b\[[0-9;]*m/g, "").trim()));
    if (injected.status !== 0) {
      throw new Error(`postject failed for ${binaryName(target)} (exit ${injected.status}): ${injected.stderr || injected.error?.message}`);
    }
    for (const line of said) {
      const hint = /signature seems corrupted/.test(line)
        ? " (expected: injection invalidates node.exe's Authenticode signature; the release signs again)"
        : "";
      log(`${binaryName(target)}: postject: ${line.trim()}${hint}`);
    }
    if (codesign) {
      // Ad-hoc signature so the binary runs on Apple silicon; the release
      // workflow replaces it with the Developer ID signature.
      const signed = spawnSync("codesign", ["--sign", "-", "--force", temp], { encoding: "utf8" });
      if (signed.status !== 0) throw new Error(`codesign --sign -: ${signed.stderr}`);
    } else if (darwin) {
      log(`${binaryName(target)}: codesign not available here; the Node signature is now invalid, sign it on macOS before shipping`);
    }
    await fs.chmod(temp, 0o755);
    await fs.rename(temp, final);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  return final;
}

async function sha256(file) {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

/** `<sha256>  <file>` for every binary in `out`, sorted by name. */
async function writeSums(out) {
  const names = (await fs.readdir(out)).filter((name) => TARGETS.some((t) => name === binaryName(t))).sort();
  const lines = [];
  for (const name of names) lines.push(`${await sha256(path.join(out, name))}  ${name}\n`);
  const file = path.join(out, "SHA256SUMS");
  await fs.writeFile(`${file}.tmp-${process.pid}`, lines.join(""));
  await fs.rename(`${file}.tmp-${process.pid}`, file);
  return file;
}

function parseCli(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      target: { type: "string", multiple: true },
      pins: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(
      "usage: npm run build [-- --target <target>|all] [--pins <file.json>] [--out <dir>]\n" +
        `targets: ${TARGETS.join(", ")} (default: this host, ${hostTarget()})\n`,
    );
    process.exit(0);
  }
  let targets;
  if (values.target) {
    targets = values.target.flatMap((t) => (t === "all" ? TARGETS : t.split(",")));
    targets = [...new Set(targets)];
  }
  return { targets, pins: values.pins, out: values.out };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  build(parseCli(process.argv.slice(2))).catch((error) => {
    process.stderr.write(`build: ${error.message}\n`);
    process.exitCode = 1;
  });
}
