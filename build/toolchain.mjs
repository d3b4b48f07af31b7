/**
 * The build's own toolchain: the pinned Node 24.21.0 executables the
 * single-executables are made from, and the registry tarballs (pnpm, npm)
 * the test fixtures are made from.
 *
 * Every artifact is checked against a pin before anything is extracted, and
 * only then published into CACHE_DIR with one rename. Parallel test processes
 * may ask for the same artifact at the same time: each call works in its own
 * temporary folder, and the loser of the final rename simply uses the
 * winner's copy (after checking its marker like any other cached copy).
 *
 * Where the bytes come from:
 * - `node-<target>@24.21.0` from the npm registry (linux-x64, linux-arm64,
 *   win-x64 exist at that version), fetched with `npm pack` so npm's
 *   configured registry is used. Checked against the sha512 integrity below.
 * - darwin-x64, darwin-arm64 and win-arm64 have no npm package at 24.21.0:
 *   the official nodejs.org archive, checked against the sha256 in
 *   src/pins/production.ts (read from that file, never copied here).
 * - pnpm and npm tarballs from the registry through `npm pack`, checked
 *   against their sha512 integrity.
 *
 * Plain ESM JavaScript on purpose: it runs on the developer's Node 20 before
 * anything is compiled.
 */
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import * as fs from "node:fs/promises";
import { homedir } from "node:os";
import * as path from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { crc32, inflateRawSync } from "node:zlib";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const NODE_VERSION = "24.21.0";

/** Where verified artifacts are kept between builds and test runs (outside the repo). */
export const CACHE_DIR = process.env.GSS_CACHE_DIR
  ? path.resolve(process.env.GSS_CACHE_DIR)
  : process.env.XDG_CACHE_HOME
    ? path.join(path.resolve(process.env.XDG_CACHE_HOME), "gentle-shell-setup")
    : path.join(homedir(), ".cache", "gentle-shell-setup");

const TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win-x64", "win-arm64"];

/**
 * Integrity of the `node-<target>@24.21.0` npm packages, read with
 * `npm view node-<target>@24.21.0 dist.integrity`.
 */
const NODE_PACKAGE_INTEGRITY = {
  "linux-x64": "sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==",
  "linux-arm64": "sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==",
  "win-x64": "sha512-0ddSuAi9KnmYzfjJwKfFUO5YfljMVfa9smiGRQXmp5QGhm8KXk7xbqkFNeaPXVaL6sfZ5oGfCD7q8wWY/TnypA==",
};

/**
 * Registry tarballs the fixtures need, by `name@version`. pnpm's integrity
 * is the production pin (src/pins/production.ts); npm's was read with
 * `npm view npm@11.19.0 dist.integrity` (the npm bundled with Node 24.21.0).
 */
const PACKAGE_INTEGRITY = {
  "pnpm@11.1.1": "production-pins:pnpm",
  "npm@11.19.0": "sha512-SDd/hHg3KqHE5Ht2NHWxNYNtqCQ2pXAPLl6OtQhPyED5PHsRfrOtO199MZTIG2cQoQ1ZRI9t28shrD+2cr3AAw==",
};

const MARKER = ".gss-verified.json";

/** Our name for the machine this runs on, e.g. "linux-x64". */
export function hostTarget() {
  const os = { linux: "linux", darwin: "darwin", win32: "win" }[process.platform];
  const arch = { x64: "x64", arm64: "arm64" }[process.arch];
  if (!os || !arch) {
    throw new Error(`unsupported build host ${process.platform}-${process.arch}`);
  }
  return `${os}-${arch}`;
}

/**
 * Absolute path of a verified Node 24.21.0 executable for `target`
 * (`.../bin/node`, or `.../node.exe` for Windows targets).
 */
export async function ensureNodeBinary(target = hostTarget()) {
  if (!TARGETS.includes(target)) {
    throw new Error(`unknown target ${JSON.stringify(target)} (expected one of ${TARGETS.join(", ")})`);
  }
  const windows = target.startsWith("win-");
  const executable = windows ? "node.exe" : "bin/node";
  const npmIntegrity = NODE_PACKAGE_INTEGRITY[target];
  const pin = npmIntegrity ? { kind: "integrity", value: npmIntegrity, source: `npm package node-${target}@${NODE_VERSION}` } : await nodeArchivePin(target);
  const artifact = `Node ${NODE_VERSION} for ${target} (${pin.source})`;
  const dir = path.join(CACHE_DIR, `node-v${NODE_VERSION}-${target}`);

  await ensureCached({
    dir,
    artifact,
    expect: pin.value,
    check: (marker) => marker.file === executable,
    produce: async (work, tree) => {
      if (npmIntegrity) {
        const tgz = await npmPack(`node-${target}@${NODE_VERSION}`, work);
        await verifyFile(tgz, "sha512", pin.value, artifact);
        if (windows) {
          // The package holds package/bin/node.exe; keep only the executable.
          await extractTar(tgz, tree, { strip: 2, filter: (p) => p === "package/bin/node.exe" });
        } else {
          await extractTar(tgz, tree, { strip: 1 });
        }
      } else {
        const archive = path.join(work, path.basename(new URL(pin.url).pathname));
        await download(pin.url, archive, pin.maxBytes, artifact);
        await verifyFile(archive, "sha256", pin.value, artifact);
        if (windows) {
          await extractZipEntry(archive, `node-v${NODE_VERSION}-${target}/node.exe`, path.join(tree, "node.exe"));
        } else {
          await extractTar(archive, tree, { strip: 1 });
        }
      }
      const stat = await fs.stat(path.join(tree, executable)).catch(() => null);
      if (!stat?.isFile()) throw new Error(`${artifact}: ${executable} missing from the verified archive`);
      if (!windows) await fs.chmod(path.join(tree, executable), 0o755);
      return { file: executable, size: stat.size };
    },
  });
  return path.join(dir, executable);
}

/** Path of a verified registry tarball (`pnpm@11.1.1`, `npm@11.19.0`). */
export async function ensurePackageTarball(name, version) {
  const spec = `${name}@${version}`;
  let integrity = PACKAGE_INTEGRITY[spec];
  if (!integrity) {
    throw new Error(`no pinned integrity for ${spec} (known: ${Object.keys(PACKAGE_INTEGRITY).join(", ")})`);
  }
  if (integrity === "production-pins:pnpm") {
    const pins = await productionPins();
    if (pins.pnpm.version !== version || !pins.pnpm.integrity) {
      throw new Error(`no pinned integrity for ${spec} in src/pins/production.ts`);
    }
    integrity = pins.pnpm.integrity;
  }
  const artifact = `registry tarball ${spec}`;
  const file = `${name.replace(/^@/, "").replace(/\//g, "-")}-${version}.tgz`;
  const dir = path.join(CACHE_DIR, "packages", `${name.replace(/\//g, "+")}@${version}`);
  await ensureCached({
    dir,
    artifact,
    expect: integrity,
    check: (marker) => marker.file === file,
    produce: async (work, tree) => {
      const tgz = await npmPack(spec, work);
      await verifyFile(tgz, "sha512", integrity, artifact);
      await fs.rename(tgz, path.join(tree, file));
      const stat = await fs.stat(path.join(tree, file));
      return { file, size: stat.size };
    },
  });
  return path.join(dir, file);
}

// ---------------------------------------------------------------------------
// Cache: a folder published with one rename, holding a marker that names the
// pin it was verified against. A cached copy is used only when its marker
// names the same pin and the file has the recorded size.

export async function ensureCached({ dir, artifact, expect, check, produce }) {
  if (await markerValid(dir, expect, check)) return;
  await fs.mkdir(path.dirname(dir), { recursive: true });
  const work = `${dir}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  await fs.mkdir(work, { recursive: true });
  try {
    const tree = path.join(work, "tree");
    await fs.mkdir(tree);
    const produced = await produce(work, tree);
    const marker = { artifact, verified: expect, ...produced };
    await fs.writeFile(path.join(tree, MARKER), `${JSON.stringify(marker, null, 2)}\n`);
    try {
      await fs.rename(tree, dir);
    } catch (error) {
      if (!isTaken(error)) throw error;
      // Another process published first, or a stale copy sits there.
      if (!(await markerValid(dir, expect, check))) {
        const aside = `${dir}.stale-${process.pid}-${randomBytes(4).toString("hex")}`;
        await fs.rename(dir, aside).catch((e) => {
          if (e.code !== "ENOENT") throw e;
        });
        await fs.rm(aside, { recursive: true, force: true });
        try {
          await fs.rename(tree, dir);
        } catch (again) {
          if (!isTaken(again)) throw again;
        }
        if (!(await markerValid(dir, expect, check))) {
          throw new Error(`${artifact}: could not publish a verified copy into ${dir}`);
        }
      }
    }
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

function isTaken(error) {
  return error && (error.code === "EEXIST" || error.code === "ENOTEMPTY" || error.code === "EPERM");
}

async function markerValid(dir, expect, check) {
  let marker;
  try {
    marker = JSON.parse(await fs.readFile(path.join(dir, MARKER), "utf8"));
  } catch {
    return false;
  }
  if (!marker || marker.verified !== expect || typeof marker.file !== "string" || !check(marker)) return false;
  const stat = await fs.stat(path.join(dir, marker.file)).catch(() => null);
  return Boolean(stat?.isFile() && stat.size === marker.size);
}

// ---------------------------------------------------------------------------
// Verification

async function hashFile(file, algorithm) {
  const hash = createHash(algorithm);
  await pipeline(createReadStream(file), hash);
  return hash.digest();
}

/** `expected` is an SRI string for sha512, lower-case hex for sha256. */
export async function verifyFile(file, algorithm, expected, artifact) {
  const digest = await hashFile(file, algorithm);
  const actual = algorithm === "sha512" ? `sha512-${digest.toString("base64")}` : digest.toString("hex");
  if (actual !== expected) {
    throw new Error(`integrity mismatch for ${artifact}: expected ${expected}, got ${actual} (${path.basename(file)}); nothing was extracted`);
  }
}

// ---------------------------------------------------------------------------
// Fetching

/** How to run npm: the npm running us (`npm run build`), else the one beside node on Windows, else `npm` on PATH. */
function npmCommand() {
  const execpath = process.env.npm_execpath;
  if (execpath && /npm-cli\.js$/.test(execpath)) return [process.execPath, [execpath]];
  if (process.platform === "win32") {
    return [process.execPath, [path.join(path.dirname(process.execPath), "node_modules", "npm", "bin", "npm-cli.js")]];
  }
  return ["npm", []];
}

export async function npmPack(spec, dest) {
  const [command, prefix] = npmCommand();
  const args = [...prefix, "pack", spec, "--pack-destination", dest, "--json", "--ignore-scripts"];
  const { code, stdout, stderr } = await run(command, args, { cwd: dest });
  if (code !== 0) {
    throw new Error(`npm pack ${spec} failed (exit ${code}): ${stderr.trim().split("\n").slice(-5).join("\n")}`);
  }
  let filename;
  try {
    filename = JSON.parse(stdout)[0].filename;
  } catch {
    throw new Error(`npm pack ${spec}: unexpected output ${stdout.slice(0, 200)}`);
  }
  return path.join(dest, filename);
}

function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Download to `file`, refusing more than `maxBytes`. */
async function download(url, file, maxBytes, artifact) {
  let response;
  try {
    response = await fetch(url, { headers: { "accept-encoding": "identity" }, redirect: "follow" });
  } catch (error) {
    throw new Error(`cannot download ${artifact} from ${url}: ${error.cause?.message ?? error.message}`);
  }
  if (!response.ok || !response.body) {
    throw new Error(`cannot download ${artifact} from ${url}: HTTP ${response.status}`);
  }
  const length = Number(response.headers.get("content-length"));
  if (Number.isFinite(length) && length > maxBytes) {
    throw new Error(`${artifact}: ${url} announces ${length} bytes, more than the ${maxBytes} allowed`);
  }
  let seen = 0;
  const limit = new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) controller.error(new Error(`${artifact}: more than ${maxBytes} bytes from ${url}`));
      else controller.enqueue(chunk);
    },
  });
  const { Readable } = await import("node:stream");
  await pipeline(Readable.fromWeb(response.body.pipeThrough(limit)), createWriteStream(file));
}

/** The production pin of a nodejs.org archive, with its URL. */
async function nodeArchivePin(target) {
  const pins = await productionPins();
  const filePin = pins.node.archives[target];
  if (pins.node.version !== NODE_VERSION || !filePin?.sha256) {
    throw new Error(`no sha256 pin for Node ${NODE_VERSION} ${target} in src/pins/production.ts`);
  }
  const name = path.posix.basename(filePin.path);
  return {
    kind: "sha256",
    value: filePin.sha256,
    maxBytes: filePin.maxBytes,
    url: `${nodeDistBase()}/v${NODE_VERSION}/${name}`,
    source: `${name} from nodejs.org, sha256 pinned in src/pins/production.ts`,
  };
}

/** nodejs.org/dist, or a mirror with the same layout (GSS_NODE_DIST_URL); bytes are checked against the pin either way. */
function nodeDistBase() {
  return (process.env.GSS_NODE_DIST_URL || "https://nodejs.org/dist").replace(/\/+$/, "");
}

/** A module of src/ (`parts` of its path), compiled in memory with esbuild and imported. */
export async function importSource(...parts) {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [path.join(REPO_ROOT, "src", ...parts)],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    logLevel: "silent",
  });
  return import(`data:text/javascript;base64,${Buffer.from(result.outputFiles[0].text).toString("base64")}`);
}

let productionPinsPromise;
/** src/pins/production.ts, compiled in memory (the single source of those hashes). */
export function productionPins() {
  productionPinsPromise ??= importSource("pins", "production.ts").then((mod) => mod.productionPins);
  return productionPinsPromise;
}

// ---------------------------------------------------------------------------
// Extraction (only ever of verified files)

export async function extractTar(file, cwd, { strip, filter }) {
  const tar = await import("tar");
  await tar.x({ file, cwd, strip, filter: filter ? (p) => filter(p.replace(/^\.\//, "")) : undefined });
}

/** Extract one entry of a (non-zip64) zip archive: enough for node.exe from the official Windows zip. */
async function extractZipEntry(zipFile, entryName, dest) {
  const zip = await fs.readFile(zipFile);
  const fail = (why) => new Error(`${path.basename(zipFile)}: ${why}`);
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw fail("not a zip archive (no end of central directory)");
  const entries = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  if (entries === 0xffff || at === 0xffffffff) throw fail("zip64 archives are not supported");
  for (let n = 0; n < entries; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw fail("corrupt central directory");
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString("utf8", at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (name !== entryName) continue;
    if (compressed === 0xffffffff || size === 0xffffffff || local === 0xffffffff) {
      throw fail("zip64 entries are not supported");
    }
    if (zip.readUInt32LE(local) !== 0x04034b50) throw fail(`corrupt local header for ${name}`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + compressed);
    let data;
    if (method === 0) data = raw;
    else if (method === 8) data = inflateRawSync(raw);
    else throw fail(`unsupported compression method ${method} for ${name}`);
    if (data.length !== size || crc32(data) !== crc) throw fail(`${name} does not match its recorded size/crc`);
    await fs.writeFile(dest, data, { mode: 0o755 });
    return;
  }
  throw fail(`${entryName} not found`);
}
