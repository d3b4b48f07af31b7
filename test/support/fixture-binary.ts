/**
 * The fixture binary and the fixture releases' engines, built by
 * build/build.mjs with the fixture pins. The binary is cached in
 * dist/fixture by the sha256 of its inputs.
 */
import { createHash, randomBytes } from "node:crypto";
import { copyFile, link, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "./paths";
import { runChecked } from "./proc";
import { listTree } from "./tarball";

/**
 * Where the fixture binary is built (documented path). GSS_FIXTURE_DIST names
 * another folder, for a second fixtures run beside the suite's (the demo's
 * test), which would otherwise replace the binary the suite's releases list.
 */
export const FIXTURE_DIST = process.env.GSS_FIXTURE_DIST || join(REPO_ROOT, "dist", "fixture");
/** The fixture binary's name: this host's target (linux-x64 on Linux, as the suite has always built). */
export const FIXTURE_BINARY_NAME =
  process.platform === "win32"
    ? `gentle-shell-setup-win-${process.arch}.exe`
    : process.platform === "darwin"
      ? `gentle-shell-setup-darwin-${process.arch}`
      : "gentle-shell-setup-linux-x64";
export const FIXTURE_BINARY = join(FIXTURE_DIST, FIXTURE_BINARY_NAME);

/** build/build.mjs's engine-script build (plain JS, loaded by path like the toolchain). */
export async function buildEngineScript(options: { pins: string; outfile: string; version?: string }): Promise<string> {
  const url = pathToFileURL(join(REPO_ROOT, "build", "build.mjs")).href;
  const mod = (await import(/* @vite-ignore */ url)) as { buildEngineScript(o: typeof options): Promise<string> };
  return mod.buildEngineScript(options);
}

/**
 * `node build/build.mjs --pins <pins> --out <tmp>`, then the binary is moved
 * into dist/fixture with one rename; the run itself uses its own link to it
 * (runOwn), which no later build replaces.
 * The build is skipped when dist/fixture already holds a binary built from
 * the same inputs: the pins, src/, build/, sea-config.json, package.json
 * and package-lock.json (their sha256 is kept beside the binary).
 */
export async function buildFixtureBinary(pinsFile: string, runDir: string): Promise<string> {
  const key = await buildKey(pinsFile);
  const keyFile = join(FIXTURE_DIST, ".fixture-build-key");
  const previous = await readFile(keyFile, "utf8").catch(() => "");
  const present = await stat(FIXTURE_BINARY).then(
    // Windows reports no execute bits.
    (s) => s.isFile() && (process.platform === "win32" || (s.mode & 0o111) !== 0),
    () => false,
  );
  if (present && previous.trim() === key) {
    // The run's own link to it, taken before the key is read again: another run may build another one meanwhile.
    const own = await runOwn(FIXTURE_BINARY, runDir);
    if ((await readFile(keyFile, "utf8").catch(() => "")).trim() === key) return own;
    await rm(own, { force: true });
  }

  const out = join(runDir, "build");
  await runChecked(process.execPath, [join(REPO_ROOT, "build", "build.mjs"), "--pins", pinsFile, "--out", out], {
    cwd: REPO_ROOT,
  });
  await mkdir(FIXTURE_DIST, { recursive: true });
  const name = FIXTURE_BINARY_NAME;
  const tag = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const own = await runOwn(join(out, name), runDir);
  await publishFile(join(out, name), FIXTURE_BINARY, tag);
  await publishFile(pinsFile, join(FIXTURE_DIST, "fixture-pins.json"), tag);
  await writeFile(`${keyFile}.${tag}`, key + "\n");
  await rename(`${keyFile}.${tag}`, keyFile);
  await rm(out, { recursive: true, force: true });
  return own;
}

/**
 * The binary this run uses: a link in its own folder (a copy across file
 * systems), so that another run replacing dist/fixture (a second vitest, the
 * demo) never changes the file this run's releases list.
 */
async function runOwn(binary: string, runDir: string): Promise<string> {
  const own = join(runDir, FIXTURE_BINARY_NAME);
  await link(binary, own).catch(() => copyFile(binary, own));
  return own;
}

async function publishFile(from: string, to: string, tag: string): Promise<void> {
  const staged = join(dirname(to), `.${tag}-${basename(to)}`);
  await copyFile(from, staged);
  await rename(staged, to);
}

async function buildKey(pinsFile: string): Promise<string> {
  const hash = createHash("sha256");
  const add = async (rel: string) => {
    hash.update(`${rel}\0`);
    hash.update(await readFile(join(REPO_ROOT, rel)).catch(() => Buffer.from("(missing)")));
    hash.update("\0");
  };
  hash.update(await readFile(pinsFile));
  for (const dir of ["src", "build"]) {
    for (const rel of await listTree(join(REPO_ROOT, dir))) {
      const st = await stat(join(REPO_ROOT, dir, rel));
      if (st.isFile()) await add(`${dir}/${rel}`);
    }
  }
  for (const rel of ["sea-config.json", "package.json", "package-lock.json"]) await add(rel);
  return hash.digest("hex");
}
