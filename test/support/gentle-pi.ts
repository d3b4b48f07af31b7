/**
 * The fixture gentle-pi (see gentle-pi/README.md): packed from the template in
 * gentle-pi/ with its version substituted, as an npm-shaped tarball
 * (`package/...`). Packing is deterministic, so a version's integrity is the
 * same on every run.
 */
import { createHash } from "node:crypto";
import { chmod, cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SUPPORT_DIR } from "./paths";
import { listTree, packDeterministic } from "./tarball";

export const GENTLE_PI_TEMPLATE = join(SUPPORT_DIR, "gentle-pi");
/** The versions the fixture registry serves; the last is `latest`. */
export const GENTLE_PI_VERSIONS = ["4.0.0", "4.1.0"] as const;
/** Where the fixture's build script leaves Gentle AI, relative to the package root. */
export const GENTLE_AI_IN_PACKAGE = "bin/gentle-ai";
/** Written by the fixture extension into the agent home when Pi loads it. */
export const GENTLE_PI_MARKER = "gentle-pi-fixture.json";

export interface PackedGentlePi {
  version: string;
  file: string;
  /** sha512 subresource integrity, as npm and pnpm record it. */
  integrity: string;
  /** sha1 hex (npm's `shasum`). */
  shasum: string;
}

const PLACEHOLDER = "__GENTLE_PI_VERSION__";

/**
 * Pack gentle-pi@<version> into `outDir/gentle-pi-<version>.tgz`.
 * `dependencies` are added to its package.json (the bench's heavy release, ./heavy-release.ts).
 */
export async function packGentlePi(version: string, outDir: string, options: { dependencies?: Record<string, string> } = {}): Promise<PackedGentlePi> {
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`fixture gentle-pi: not an exact version: ${version}`);
  const stage = await mkdtemp(join(tmpdir(), "gss-gentle-pi-"));
  try {
    const pkg = join(stage, "package");
    await cp(GENTLE_PI_TEMPLATE, pkg, { recursive: true });
    for (const rel of await listTree(pkg)) {
      const full = join(pkg, rel);
      if (!/\.(js|sh|md|json)$/.test(rel)) continue;
      const text = await readFile(full, "utf8");
      let next = text.replaceAll(PLACEHOLDER, version);
      if (rel === "package.json") {
        const manifest = JSON.parse(next);
        manifest.version = version;
        if (options.dependencies) manifest.dependencies = { ...manifest.dependencies, ...options.dependencies };
        next = JSON.stringify(manifest, null, 2) + "\n";
      }
      if (next !== text) await writeFile(full, next);
      if (rel.endsWith(".sh")) await chmod(full, 0o755);
    }
    await mkdir(outDir, { recursive: true });
    const file = join(outDir, `gentle-pi-${version}.tgz`);
    await packDeterministic(stage, "package", file);
    const bytes = await readFile(file);
    return {
      version,
      file,
      integrity: "sha512-" + createHash("sha512").update(bytes).digest("base64"),
      shasum: createHash("sha1").update(bytes).digest("hex"),
    };
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

export interface GentleAiRecord {
  version: string;
  cwd: string;
  argv: string[];
  env: Record<string, string>;
}

/** Read one record the fixture `gentle-ai` wrote (format: gentle-pi/README.md). */
export async function readGentleAiRecord(file: string): Promise<GentleAiRecord> {
  const fields = (await readFile(file, "utf8")).split("\0");
  if (fields[0] !== "gentle-ai-fixture-record-1") throw new Error(`${file}: not a gentle-ai fixture record`);
  const [, version, cwd, count] = fields;
  const argc = Number(count);
  const argv = fields.slice(4, 4 + argc);
  const env: Record<string, string> = {};
  for (const entry of fields.slice(4 + argc)) {
    if (!entry) continue;
    const eq = entry.indexOf("=");
    env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return { version: version!, cwd: cwd!, argv, env };
}

/** Every record under `<GENTLE_AI_HOME>/fixture-runs`, oldest first. */
export async function readGentleAiRuns(gentleAiHome: string): Promise<GentleAiRecord[]> {
  const dir = join(gentleAiHome, "fixture-runs");
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith(".rec"));
  } catch {
    return [];
  }
  names.sort((a, b) => runKey(a) - runKey(b) || a.localeCompare(b));
  return Promise.all(names.map((n) => readGentleAiRecord(join(dir, n))));
}

function runKey(name: string): number {
  return Number(/^run-(\d+)-/.exec(name)?.[1] ?? 0);
}
