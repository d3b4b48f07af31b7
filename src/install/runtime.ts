/**
 * Runtimes (spec: "Ownership rules", Runtimes; "npm for Pi"). Each one is
 * fetched verified, written to a staging folder in runtime/, run once to
 * check its version, marked with .gentle-shell-runtime and published with one
 * rename. A marked runtime is reused; an unmarked folder is never replaced.
 */
import { promises as fs } from "node:fs";
import { randomBytes } from "node:crypto";
import { basename, join } from "pathe";
import type { Layout } from "../core/layout";
import type { Pins, Target } from "../pins/types";
import type { Source } from "../core/source";
import { pnpmEnvironment, type Env } from "../core/environment";
import { extractTarGz, OUTSIDE, type MemberPolicy } from "../io/archive";
import { isAlive, lstatOrNull, readTextOrNull, writeIfChanged } from "../io/files";
import { run } from "../io/process";
import { fetchArtifact, type FetchOptions } from "./fetch";

export const RUNTIME_MARKER = ".gentle-shell-runtime";

export interface RuntimeContext {
  layout: Layout;
  pins: Pins;
  source: Source;
  target: Target;
  env: Env;
  fetch?: FetchOptions;
}

export interface RuntimeOutcome {
  name: string;
  path: string;
  status: "installed" | "reused";
}

/** Remove our own staging folders left by installers that are gone. */
export async function cleanStaleStaging(runtimeDir: string): Promise<void> {
  const names = await fs.readdir(runtimeDir).catch(() => [] as string[]);
  for (const name of names) {
    const m = /^\.(?:staging|download)-.*?-(\d+)-[0-9a-f]{8}$/.exec(name) ?? /^\.download-(\d+)-[0-9a-f]{8}$/.exec(name);
    if (m && !isAlive(Number(m[1]))) await fs.rm(join(runtimeDir, name), { recursive: true, force: true });
  }
}

async function existingRuntime(dir: string, label: string): Promise<boolean> {
  const stat = await lstatOrNull(dir);
  if (!stat) return false;
  const rel = `runtime/${basename(dir)}`;
  if (!stat.isDirectory()) {
    throw new Error(`${rel} is not a folder made by gentle-shell-setup, so it was left as it is. Move it away, then run the installer again.`);
  }
  const marker = await lstatOrNull(join(dir, RUNTIME_MARKER));
  if (!marker || !marker.isFile()) {
    throw new Error(
      `${rel} exists but carries no ${RUNTIME_MARKER} marker: it was not made by gentle-shell-setup, so ${label} was not installed over it. Move it away, then run the installer again.`,
    );
  }
  return true;
}

/** Publish `staging` as `dir` with one rename; if another installer won, reuse theirs. */
async function publish(staging: string, dir: string): Promise<"installed" | "reused"> {
  try {
    await fs.rename(staging, dir);
    return "installed";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || code === "ENOTEMPTY" || code === "EPERM") {
      await fs.rm(staging, { recursive: true, force: true });
      if (await existingRuntime(dir, basename(dir))) return "reused";
    }
    throw error;
  }
}

function stagingFolder(ctx: RuntimeContext, what: string): string {
  return join(ctx.layout.runtime, `.staging-${what}-${process.pid}-${randomBytes(4).toString("hex")}`);
}

// --- Node with npm -------------------------------------------------------

function nodeArchiveRoot(ctx: RuntimeContext): string {
  return `node-v${ctx.pins.node.version}-${ctx.target}`;
}

export function nodePolicy(root: string, win: boolean, maxBytes: number): MemberPolicy {
  return {
    name: `${root} archive`,
    links: "skip",
    maxMembers: 20_000,
    maxBytes,
    select(path, type) {
      if (path === root) return null;
      if (!path.startsWith(root + "/")) return OUTSIDE;
      const rel = path.slice(root.length + 1);
      if (win) {
        if (type === "file" && rel === "node.exe") return rel;
        if (rel === "node_modules/npm" || rel.startsWith("node_modules/npm/")) return rel;
        if (type === "file" && rel === "LICENSE") return rel;
        return null;
      }
      if (type === "file" && rel === "bin/node") return rel;
      if (rel === "lib/node_modules/npm" || rel.startsWith("lib/node_modules/npm/")) return rel;
      if (type === "file" && rel === "LICENSE") return rel;
      return null;
    },
  };
}

const NPM_WRAPPER = (cli: string) => `#!/bin/sh
# gentle-shell-setup: runs the npm of this runtime with this runtime's node.
dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd) || exit 1
exec "$dir/node" "$dir/../lib/node_modules/npm/bin/${cli}" "$@"
`;

const NPM_CMD = (cli: string) =>
  ["@ECHO OFF", "SETLOCAL DisableDelayedExpansion", `"%~dp0node.exe" "%~dp0node_modules\\npm\\bin\\${cli}" %*`, ""].join("\r\n");

/** The CommonJS entry Pi's npmCommand runs: its basename is exactly `npm`. */
export function npmShimFiles(win: boolean): { entry: string; packageJson: string } {
  const cli = win ? "../node_modules/npm/bin/npm-cli.js" : "../lib/node_modules/npm/bin/npm-cli.js";
  return {
    entry: `// gentle-shell-setup: Pi's npm entry. Loads the npm bundled with this runtime.\n"use strict";\nrequire(${JSON.stringify(cli)});\n`,
    packageJson: JSON.stringify({ type: "commonjs" }) + "\n",
  };
}

export async function ensureNpmShim(layout: Layout): Promise<void> {
  const dir = join(layout.nodeDir, "gentle-shell");
  const stat = await lstatOrNull(dir);
  if (stat && !stat.isDirectory()) throw new Error(`${dir} is not a folder; Pi's npm entry was not written`);
  if (!stat) await fs.mkdir(dir, { mode: 0o755 });
  const files = npmShimFiles(layout.platform === "win32");
  await writeIfChanged(join(dir, "package.json"), files.packageJson, 0o644);
  await writeIfChanged(join(dir, "npm"), files.entry, 0o644);
}

export async function ensureNodeRuntime(ctx: RuntimeContext): Promise<RuntimeOutcome> {
  const { layout, pins } = ctx;
  const name = `Node ${pins.node.version}`;
  await fs.mkdir(layout.runtime, { recursive: true, mode: 0o755 });
  await cleanStaleStaging(layout.runtime);
  if (await existingRuntime(layout.nodeDir, name)) {
    await ensureNpmShim(layout);
    return { name, path: layout.nodeDir, status: "reused" };
  }
  const pin = pins.node.archives[ctx.target];
  if (!pin || !pin.sha256) throw new Error(`${name} for ${ctx.target} has no pinned checksum in this build`);
  const win = layout.platform === "win32";
  const staging = stagingFolder(ctx, `node-${pins.node.version}`);
  await fs.mkdir(staging, { mode: 0o755 });
  let archive: string | null = null;
  try {
    archive = await fetchArtifact(ctx.source, pin.path, layout.runtime, { name: `${name} (${ctx.target})`, ...pin }, ctx.fetch);
    const root = nodeArchiveRoot(ctx);
    if (win) {
      const { extractZip } = await import("../io/zip");
      await extractZip(archive, staging, nodePolicy(root, true, 400 * 1024 * 1024));
    } else {
      await extractTarGz(archive, staging, nodePolicy(root, false, 400 * 1024 * 1024));
    }
    const nodeBin = win ? join(staging, "node.exe") : join(staging, "bin", "node");
    const npmPkgPath = win ? join(staging, "node_modules", "npm", "package.json") : join(staging, "lib", "node_modules", "npm", "package.json");
    if (!(await lstatOrNull(nodeBin))) throw new Error(`the ${name} archive holds no node executable`);
    const npmPkgText = await readTextOrNull(npmPkgPath);
    if (!npmPkgText) throw new Error(`the ${name} archive holds no npm; it was rejected`);
    if (!win) {
      await fs.writeFile(join(staging, "bin", "npm"), NPM_WRAPPER("npm-cli.js"), { mode: 0o755 });
      await fs.writeFile(join(staging, "bin", "npx"), NPM_WRAPPER("npx-cli.js"), { mode: 0o755 });
    } else {
      await fs.writeFile(join(staging, "npm.cmd"), NPM_CMD("npm-cli.js"));
      await fs.writeFile(join(staging, "npx.cmd"), NPM_CMD("npx-cli.js"));
    }
    const versionEnv = { ...pnpmEnvironment(layout, { env: ctx.env }) };
    const nodeVersion = await run(nodeBin, ["--version"], { env: versionEnv, cwd: staging, timeoutMs: 60_000 });
    if (nodeVersion.code !== 0 || nodeVersion.stdout.trim() !== `v${pins.node.version}`) {
      throw new Error(`the ${name} from the archive printed ${JSON.stringify(nodeVersion.stdout.trim() || nodeVersion.stderr.trim())} for --version`);
    }
    const npmVersionWanted = (JSON.parse(npmPkgText) as { version?: string }).version;
    const npmCli = win ? join(staging, "node_modules", "npm", "bin", "npm-cli.js") : join(staging, "lib", "node_modules", "npm", "bin", "npm-cli.js");
    const npmVersion = await run(nodeBin, [npmCli, "--version"], { env: versionEnv, cwd: staging, timeoutMs: 60_000 });
    if (npmVersion.code !== 0 || npmVersion.stdout.trim() !== npmVersionWanted) {
      throw new Error(`the npm in the ${name} archive printed ${JSON.stringify(npmVersion.stdout.trim())}, expected ${npmVersionWanted}`);
    }
    await fs.writeFile(join(staging, RUNTIME_MARKER), `node ${pins.node.version} npm ${npmVersionWanted} sha256 ${pin.sha256}\n`);
    const status = await publish(staging, layout.nodeDir);
    await ensureNpmShim(layout);
    return { name, path: layout.nodeDir, status };
  } finally {
    if (archive) await fs.rm(archive, { force: true });
    await fs.rm(staging, { recursive: true, force: true });
  }
}

// --- pnpm ----------------------------------------------------------------

export function pnpmPolicy(maxBytes: number): MemberPolicy {
  return {
    name: "pnpm tarball",
    links: "reject",
    maxMembers: 20_000,
    maxBytes,
    select(path) {
      if (path === "package") return null;
      if (!path.startsWith("package/")) return OUTSIDE;
      return path;
    },
    // Executable bits are kept for the owner only.
    fileMode: (mode) => (mode & 0o111 ? 0o744 : 0o644),
  };
}

export async function ensurePnpmRuntime(ctx: RuntimeContext): Promise<RuntimeOutcome> {
  const { layout, pins } = ctx;
  const name = `pnpm ${pins.pnpm.version}`;
  await fs.mkdir(layout.runtime, { recursive: true, mode: 0o755 });
  if (await existingRuntime(layout.pnpmDir, name)) return { name, path: layout.pnpmDir, status: "reused" };
  const staging = stagingFolder(ctx, `pnpm-${pins.pnpm.version}`);
  await fs.mkdir(staging, { mode: 0o755 });
  let archive: string | null = null;
  try {
    archive = await fetchArtifact(
      ctx.source,
      pins.pnpm.file.path,
      layout.runtime,
      { name, integrity: pins.pnpm.integrity, sha256: pins.pnpm.file.sha256, size: pins.pnpm.file.size, maxBytes: pins.pnpm.file.maxBytes },
      ctx.fetch,
    );
    await extractTarGz(archive, staging, pnpmPolicy(200 * 1024 * 1024));
    const entry = join(staging, "package", "bin", "pnpm.mjs");
    if (!(await lstatOrNull(entry))) throw new Error(`the ${name} tarball holds no bin/pnpm.mjs`);
    const env = pnpmEnvironment(layout, { env: ctx.env });
    const result = await run(layout.node, [entry, "--version"], { env, cwd: staging, timeoutMs: 60_000 });
    if (result.code !== 0 || result.stdout.trim() !== pins.pnpm.version) {
      throw new Error(`${name} printed ${JSON.stringify(result.stdout.trim() || result.stderr.trim().slice(0, 200))} for --version`);
    }
    await fs.writeFile(join(staging, RUNTIME_MARKER), `pnpm ${pins.pnpm.version} ${pins.pnpm.integrity}\n`);
    const status = await publish(staging, layout.pnpmDir);
    return { name, path: layout.pnpmDir, status };
  } finally {
    if (archive) await fs.rm(archive, { force: true });
    await fs.rm(staging, { recursive: true, force: true });
  }
}
