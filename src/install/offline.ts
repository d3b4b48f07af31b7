/**
 * Offline bundles (design: "Sources: one layout for official, mirror and
 * offline"; spec: "One lockfile for every system", "pnpm environment").
 *
 * A bundle is a folder a user copies to a USB stick and installs from on a
 * machine with no network at all. It is the source layout plus what pnpm
 * would otherwise fetch from the registry:
 *
 *     offline-bundle.json                 the manifest (below); its presence makes a folder a bundle
 *     SHA256SUMS                          `<sha256>  <path>` for every other file (`sha256sum -c SHA256SUMS`)
 *     README.txt                          what to run, in plain words
 *     gentle-shell-setup-<target>[.exe]   the installer binaries that were at hand
 *     node/v<node>/node-v<node>-<target>.tar.gz (.zip on Windows)   one per target
 *     pnpm/pnpm-<pnpm>.tgz
 *     go/go<go>.windows-<arch>.zip        Windows targets only (gentle-pi builds Gentle AI with our Go there)
 *     engram/v<engram>/engram_<engram>_<os>_<arch>.tar.gz   only for targets whose Engram is pinned
 *     releases/v<shell>/gentle-shell-distribution.json, gentle-shell-distribution-lock.yaml
 *     pnpm-store.tar.gz                   pnpm's store, filled by `pnpm fetch` from the release lockfile
 *
 * offline-bundle.json: { schema: 1, shell, pi, id, targets, store, files }
 * (`files`: every path SHA256SUMS lists, sorted).
 *
 * Why the rules are what they are:
 *
 * - Pins stay the only authority for what they pin. Node, pnpm, Go and
 *   Engram are read from the bundle through the same folder source as any
 *   other (src/install/fetch.ts) and checked against the compiled-in pins.
 *   The bundle's own SHA256SUMS guards only what no pin covers: the store
 *   archive and the two release assets. (It catches a damaged stick; it is
 *   no signature, and nothing in a bundle can loosen a pin.)
 * - The store is one archive, so a stick takes one large file instead of
 *   fifteen thousand small ones. It is made by our pnpm, in pnpmEnvironment
 *   with a throwaway prefix under the system temp folder, with `pnpm fetch`
 *   for the targets' systems (`--os/--cpu/--libc`: the lockfile lists every
 *   system's optional packages, but only an install for a system needs its
 *   own; environment variables for this are ignored by pnpm).
 * - pnpm opens the store's SQLite index for writing, so the store is never
 *   used in place: the archive is copied off the bundle, verified, and
 *   extracted into the prefix's pnpm store (when there is none yet), else
 *   into a folder of ours beside it that is removed after the install. A
 *   read-only stick is fine; nothing is ever written into the bundle.
 * - A bundle holds exactly one release; the manifest names it, so an
 *   offline install asks no registry for `latest`.
 * - A bundle is made in a staging folder beside --out and appears with one
 *   rename, so a failed or interrupted run leaves no half bundle.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "pathe";
import * as tar from "tar";
import { prefixLayout, type Layout, type Platform } from "../core/layout";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK, readDistribution, sha256Hex, type Distribution } from "../core/distribution";
import { filterNpmrc, npmrcRegistry, registryCredentialsToAuth } from "../core/npmrc";
import { pnpmEnvironment, type Env } from "../core/environment";
import { parseSource, releasePath, type Source } from "../core/source";
import { assertExactVersion } from "../core/versions";
import { TARGETS, type FilePin, type Pins, type Target } from "../pins/types";
import { extractTarGz, type MemberPolicy } from "../io/archive";
import { verifyFile, type Expected } from "../io/download";
import { isAlive, lstatOrNull } from "../io/files";
import { outputTail, run } from "../io/process";
import type { ProgressReporter } from "../io/progress";
import { fetchArtifact } from "./fetch";
import { ensureRuntimes } from "./runtime/index";
import { fetchDistributionAssets, latestRelease } from "./release";
import { userNpmrc, writeNpmrcAuth } from "./npm-settings";
import { configuredRegistry } from "./bundled-install";

export const BUNDLE_MANIFEST = "offline-bundle.json";
export const BUNDLE_SUMS = "SHA256SUMS";
export const BUNDLE_README = "README.txt";
export const BUNDLE_STORE = "pnpm-store.tar.gz";

const MiB = 1024 * 1024;
/** Caps for what the bundle's SHA256SUMS guards (no pin sets them). */
const STORE_ARCHIVE_MAX = 4096 * MiB;
const STORE_EXPANDED_MAX = 16 * 1024 * MiB;
const STORE_MEMBERS_MAX = 500_000;
const MANIFEST_MAX = 1 * MiB;
const SUMS_MAX = 1 * MiB;

export interface BundleManifest {
  schema: 1;
  shell: string;
  pi: string;
  id: string;
  targets: Target[];
  store: string;
  files: string[];
}

/** The installer binary's name for a target, in a release and in a bundle. */
export function installerName(target: Target): string {
  return `gentle-shell-setup-${target}${target.startsWith("win-") ? ".exe" : ""}`;
}

/** `pnpm fetch` flags for the systems of `targets` (design: "Facts measured", pnpm and offline). */
export function fetchSystemFlags(targets: readonly Target[]): string[] {
  const os = new Set<string>();
  const cpu = new Set<string>();
  for (const t of targets) {
    const [o, a] = t.split("-") as [string, string];
    os.add(o === "win" ? "win32" : o);
    cpu.add(a);
  }
  const flags: string[] = [];
  for (const o of [...os].sort()) flags.push("--os", o);
  for (const a of [...cpu].sort()) flags.push("--cpu", a);
  // Our Node archives are glibc builds, but a musl package may be what a glibc system's optional dependency resolves to: both.
  if (os.has("linux")) flags.push("--libc", "glibc", "--libc", "musl");
  return flags;
}

/** `<sha256>  <path>` lines, sorted by path: what `sha256sum -c` reads. */
export function formatSums(sums: Map<string, string>): string {
  return [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, hash]) => `${hash}  ${path}\n`)
    .join("");
}

export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.replace(/\r$/, "");
    if (!line) continue;
    const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    if (!m || unsafeRelative(m[2]!) || sums.has(m[2]!)) throw new Error(`${BUNDLE_SUMS} line ${i + 1} is not \`<sha256>  <path>\` for a file of the bundle`);
    sums.set(m[2]!, m[1]!);
  }
  return sums;
}

function unsafeRelative(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:/.test(path) || path.includes("\\") || path.split("/").some((s) => s === ".." || s === "." || s === "");
}

export function readBundleManifest(text: string): BundleManifest {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error(`${BUNDLE_MANIFEST} is not valid JSON`);
  }
  const d = data as Partial<Record<keyof BundleManifest, unknown>>;
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new Error(`${BUNDLE_MANIFEST} is not a JSON object`);
  if (d.schema !== 1) throw new Error(`${BUNDLE_MANIFEST} has schema ${JSON.stringify(d.schema)}; this installer reads schema 1`);
  const shell = assertExactVersion("the bundle's gentle-pi version", d.shell);
  const pi = assertExactVersion("the bundle's Pi version", d.pi);
  if (d.id !== `${shell}-${pi}`) throw new Error(`${BUNDLE_MANIFEST} names id ${JSON.stringify(d.id)}, expected ${shell}-${pi}`);
  if (!Array.isArray(d.targets) || !d.targets.every((t) => (TARGETS as readonly unknown[]).includes(t))) {
    throw new Error(`${BUNDLE_MANIFEST} does not list its targets`);
  }
  if (d.store !== BUNDLE_STORE) throw new Error(`${BUNDLE_MANIFEST} names store ${JSON.stringify(d.store)}, expected ${BUNDLE_STORE}`);
  if (!Array.isArray(d.files) || !d.files.every((f) => typeof f === "string" && !unsafeRelative(f))) {
    throw new Error(`${BUNDLE_MANIFEST} does not list its files`);
  }
  return { schema: 1, shell, pi, id: d.id as string, targets: d.targets as Target[], store: BUNDLE_STORE, files: d.files as string[] };
}

// --- Reading a bundle (install) ---------------------------------------------

export interface OfflineBundle {
  root: string;
  manifest: BundleManifest;
  sums: Map<string, string>;
}

async function readSmallFile(path: string, name: string, maxBytes: number): Promise<Buffer> {
  const stat = await fs.lstat(path).catch(() => null);
  if (!stat?.isFile()) throw new Error(`${name} is not a regular file in the bundle`);
  if (stat.size > maxBytes) throw new Error(`${name} in the bundle is larger than ${maxBytes} bytes`);
  return fs.readFile(path);
}

/** The bundle at `root`, or null when `root` is a plain folder source (no manifest). */
export async function openBundle(root: string, target: Target): Promise<OfflineBundle | null> {
  const manifestPath = join(root, BUNDLE_MANIFEST);
  if (!(await lstatOrNull(manifestPath))) return null;
  const manifestBytes = await readSmallFile(manifestPath, BUNDLE_MANIFEST, MANIFEST_MAX);
  const sums = parseSums((await readSmallFile(join(root, BUNDLE_SUMS), BUNDLE_SUMS, SUMS_MAX)).toString("utf8"));
  if (sums.get(BUNDLE_MANIFEST) !== sha256Hex(manifestBytes)) {
    throw new Error(`${BUNDLE_MANIFEST} in ${root} does not match its line in ${BUNDLE_SUMS}: the bundle is damaged; copy it again`);
  }
  const manifest = readBundleManifest(manifestBytes.toString("utf8"));
  if (!manifest.targets.includes(target)) {
    throw new Error(`this offline bundle was made for ${manifest.targets.join(", ")}, not for this machine (${target}); make one with --target ${target}`);
  }
  return { root, manifest, sums };
}

function bundleExpected(bundle: OfflineBundle, path: string, maxBytes: number): Expected {
  const sha256 = bundle.sums.get(path);
  if (!sha256) throw new Error(`${path} has no line in the bundle's ${BUNDLE_SUMS}: the bundle is incomplete; make it again`);
  return { name: `the bundle's ${path}`, sha256, maxBytes };
}

function damaged(path: string, error: unknown): Error {
  return new Error(
    `${path} in the offline bundle does not match its ${BUNDLE_SUMS} line (${(error as Error).message}): the bundle is damaged; copy it again. Nothing was installed from it.`,
  );
}

/** The release assets, checked against SHA256SUMS (no pin covers them), then read as any release. */
export async function readBundleDistribution(bundle: OfflineBundle): Promise<Distribution> {
  const { shell } = bundle.manifest;
  const texts: string[] = [];
  for (const [file, max] of [
    [DISTRIBUTION_JSON, MiB],
    [DISTRIBUTION_LOCK, 16 * MiB],
  ] as const) {
    const rel = releasePath(shell, file);
    const bytes = await readSmallFile(join(bundle.root, rel), rel, max);
    const want = bundleExpected(bundle, rel, max).sha256;
    if (sha256Hex(bytes) !== want) throw damaged(rel, new Error("sha256 differs"));
    texts.push(bytes.toString("utf8"));
  }
  const distribution = readDistribution(texts[0]!, texts[1]!);
  if (distribution.manifest.id !== bundle.manifest.id) {
    throw new Error(`the bundle's release assets are for ${distribution.manifest.id}, its manifest for ${bundle.manifest.id}`);
  }
  return distribution;
}

/** Copy the store archive off the bundle into `dir` (ours) and verify the copy; returns its path. */
export async function stageBundleStore(bundle: OfflineBundle, dir: string): Promise<string> {
  const rel = bundle.manifest.store;
  const expected = bundleExpected(bundle, rel, STORE_ARCHIVE_MAX);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const dest = join(dir, `.offline-store-${process.pid}-${randomBytes(4).toString("hex")}.tar.gz`);
  try {
    const stat = await fs.lstat(join(bundle.root, rel)).catch(() => null);
    if (!stat?.isFile()) throw new Error(`${rel} is not a regular file in the offline bundle ${bundle.root}`);
    if (stat.size > expected.maxBytes) throw new Error(`${rel} in the offline bundle is larger than ${expected.maxBytes} bytes`);
    await fs.copyFile(join(bundle.root, rel), dest);
    await fs.chmod(dest, 0o600);
    try {
      await verifyFile(dest, expected);
    } catch (error) {
      throw damaged(rel, error);
    }
    return dest;
  } catch (error) {
    await fs.rm(dest, { force: true });
    throw error;
  }
}

function storePolicy(): MemberPolicy {
  return {
    name: `the offline bundle's ${BUNDLE_STORE}`,
    links: "reject",
    maxMembers: STORE_MEMBERS_MAX,
    maxBytes: STORE_EXPANDED_MAX,
    select: (path) => (path === "" || path === "." ? null : path),
    // pnpm keeps executables as `-exec` files; the store must stay writable by its user (pnpm writes its index).
    fileMode: (mode) => (mode & 0o100 ? 0o755 : 0o644),
  };
}

export interface ExtractedStore {
  /** The store pnpm runs against. */
  dir: string;
  /** The prefix's own store (kept) or a folder of ours beside it (removed by `cleanup`). */
  kind: "prefix" | "temporary";
  cleanup(): Promise<void>;
}

const STORE_STAGING = /^\.offline-store-(\d+)-[0-9a-f]{8}$/;

/**
 * Extract a verified store archive for pnpm. Into the prefix's pnpm store
 * when there is none yet (staged beside it, then one rename), so later
 * online upgrades start warm; otherwise into a folder of ours beside it,
 * because pnpm's index cannot be merged into an existing store.
 */
export async function extractBundleStore(layout: Layout, archive: string): Promise<ExtractedStore> {
  const parent = layout.pnpm.home;
  await fs.mkdir(parent, { recursive: true, mode: 0o755 });
  for (const name of await fs.readdir(parent).catch(() => [] as string[])) {
    const m = STORE_STAGING.exec(name);
    if (m && Number(m[1]) !== process.pid && !isAlive(Number(m[1]))) await fs.rm(join(parent, name), { recursive: true, force: true });
  }
  const staging = join(parent, `.offline-store-${process.pid}-${randomBytes(4).toString("hex")}`);
  await fs.mkdir(staging, { mode: 0o755 });
  const remove = () => fs.rm(staging, { recursive: true, force: true }).then(() => undefined);
  try {
    await extractTarGz(archive, staging, storePolicy());
  } catch (error) {
    await remove();
    throw new Error(`the offline bundle's pnpm store could not be extracted: ${(error as Error).message}`);
  }
  if (!(await lstatOrNull(layout.pnpm.store))) {
    try {
      await fs.rename(staging, layout.pnpm.store);
      return { dir: layout.pnpm.store, kind: "prefix", cleanup: async () => undefined };
    } catch {
      // Another installer made the store meanwhile: ours stays temporary.
    }
  }
  return { dir: staging, kind: "temporary", cleanup: remove };
}

// --- Making a bundle -------------------------------------------------------

export interface MakeBundleOptions {
  out: string;
  pins: Pins;
  env: Env;
  /** The user's home, for their npm settings (registry, proxy, auth) only. */
  home: string;
  platform: Platform;
  /** This machine's target: its runtimes run pnpm fetch. */
  hostTarget: Target;
  targets: Target[];
  /** --source as given: official (default), a mirror URL or a folder. */
  source?: string;
  release?: string;
  /** Installer binaries to copy in, by target (see findInstallerBinaries). */
  binaries: Partial<Record<Target, string>>;
  log: (line: string) => void;
  progress?: ProgressReporter;
  verbose?: boolean;
}

export interface MadeBundle {
  out: string;
  manifest: BundleManifest;
  bytes: number;
  notes: string[];
}

/**
 * The installer binaries at hand: the running one when it is a single
 * executable, and any `gentle-shell-setup-<target>` for another target
 * beside it (a release's download folder). Missing ones are named in `notes`.
 */
export async function findInstallerBinaries(
  targets: readonly Target[],
  hostTarget: Target,
  self: { executable: string; isSingleExecutable: boolean },
): Promise<{ binaries: Partial<Record<Target, string>>; notes: string[] }> {
  const binaries: Partial<Record<Target, string>> = {};
  const notes: string[] = [];
  const dir = dirname(self.executable);
  // A release's (or a build's) SHA256SUMS beside them, when there is one, must agree with what is copied.
  const sumsText = self.isSingleExecutable ? await fs.readFile(join(dir, BUNDLE_SUMS), "utf8").catch(() => null) : null;
  let besideSums: Map<string, string> | null = null;
  try {
    besideSums = sumsText === null ? null : parseSums(sumsText);
  } catch {
    besideSums = null;
  }
  for (const target of targets) {
    if (target === hostTarget && self.isSingleExecutable) {
      binaries[target] = self.executable;
      continue;
    }
    const beside = join(dir, installerName(target));
    if (self.isSingleExecutable && (await lstatOrNull(beside))?.isFile()) {
      const want = besideSums?.get(installerName(target));
      if (want && (await sha256File(beside)) !== want) {
        notes.push(`${beside} does not match the ${BUNDLE_SUMS} beside it, so it was left out`);
        continue;
      }
      binaries[target] = beside;
      continue;
    }
    notes.push(
      `no ${installerName(target)} at hand (only the running single executable and files beside it are taken): copy it into the bundle and add its line to ${BUNDLE_SUMS} yourself`,
    );
  }
  return { binaries, notes };
}

function expectedFor(name: string, pin: FilePin, integrity?: string | null): Expected {
  return { name, sha256: pin.sha256, size: pin.size, maxBytes: pin.maxBytes, ...(integrity ? { integrity } : {}) };
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

async function listFiles(root: string, dir = root): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(root, path)));
    else if (entry.isFile()) out.push(relative(root, path));
    else throw new Error(`${path} is neither a file nor a folder; it is not put into a bundle`);
  }
  return out;
}

function readme(manifest: BundleManifest): string {
  const first = manifest.targets[0]!;
  return `Gentle Shell ${manifest.shell} (Pi ${manifest.pi}): offline bundle
=====================================================

Installs Gentle Shell on a machine with no network at all, for:
${manifest.targets.map((t) => `  - ${t}`).join("\n")}

1. Copy this folder to the machine (a read-only stick is fine: the installer
   copies what it needs and never writes here).
2. Optionally check it:  sha256sum -c ${BUNDLE_SUMS}
3. From this folder, run the installer for the machine with the folder's
   full path, for example:

     ./${installerName(first)} install --source "$PWD"

   (Windows PowerShell: .\\gentle-shell-setup-win-x64.exe install --source "$PWD")
   The path is remembered: \`gentle-shell setup\` takes Engram from here later,
   if the folder is still there.

Node, pnpm, Go and Engram are checked against the checksums built into the
installer, exactly as when they are downloaded; ${BUNDLE_SUMS} guards the rest
(the pnpm store ${BUNDLE_STORE} and the release files under releases/).
${BUNDLE_MANIFEST} names the release this bundle installs.
`;
}

/** gentle-shell-setup bundle: everything an offline install needs, in one folder. */
export async function makeBundle(options: MakeBundleOptions): Promise<MadeBundle> {
  const { pins, env, log } = options;
  const out = resolve(options.out);
  const targets = [...new Set(options.targets)];
  if (!targets.length) throw new Error("no target for the bundle");
  const existing = await lstatOrNull(out);
  if (existing && !(existing.isDirectory() && (await fs.readdir(out)).length === 0)) {
    throw new Error(`${out} already exists; a bundle is written only into a new or empty folder`);
  }
  for (const target of targets) {
    if (!pins.node.archives[target]?.sha256)
      throw new Error(`Node ${pins.node.version} for ${target} has no pinned checksum in this build, so no bundle can be made for ${target}`);
    if (target.startsWith("win-") && !pins.go.archives[target]?.sha256) {
      throw new Error(`Go ${pins.go.version} for ${target} has no pinned checksum in this build; a Windows install needs it`);
    }
  }
  const source: Source = parseSource(options.source, "");
  if (source.kind === "folder" && resolve(source.root) === out) throw new Error("--source and --out name the same folder");

  await fs.mkdir(dirname(out), { recursive: true });
  const staging = join(dirname(out), `.${basename(out)}.partial-${process.pid}-${randomBytes(4).toString("hex")}`);
  const scratch = await fs.mkdtemp(join(tmpdir(), "gss-bundle-"));
  const notes: string[] = [];
  try {
    await fs.mkdir(staging, { mode: 0o755 });
    // A throwaway prefix: its own runtimes, npm settings and pnpm store, removed at the end.
    const layout = prefixLayout({ home: scratch, platform: options.platform, pins });
    await fs.mkdir(layout.prefix, { recursive: true, mode: 0o700 });
    const user = await userNpmrc(env, options.home);
    const npmrc = registryCredentialsToAuth(filterNpmrc(user.text));
    await writeNpmrcAuth(layout, npmrc);

    const fetchInto = async (from: Source, pin: FilePin, expected: Expected) => {
      const dest = join(staging, pin.path);
      await fs.mkdir(dirname(dest), { recursive: true, mode: 0o755 });
      const handle = options.progress?.start(expected.name);
      const file = await fetchArtifact(from, pin.path, dirname(dest), expected, handle ? { download: { progress: handle } } : {});
      await fs.rename(file, dest);
      await fs.chmod(dest, 0o644);
    };

    // 1. The pinned artifacts each target needs, verified against the pins as they arrive.
    const downloads: Promise<void>[] = [];
    for (const target of targets) {
      const node = pins.node.archives[target]!;
      downloads.push(fetchInto(source, node, expectedFor(`Node ${pins.node.version} (${target})`, node)));
      if (target.startsWith("win-")) {
        const go = pins.go.archives[target]!;
        downloads.push(fetchInto(source, go, expectedFor(`Go ${pins.go.version} (${target})`, go)));
      }
      const engram = pins.engram.archives[target];
      if (engram?.sha256) downloads.push(fetchInto(source, engram, expectedFor(`Engram ${pins.engram.version} (${target})`, engram)));
      else notes.push(`Engram ${pins.engram.version} for ${target} has no pinned checksum in this build: not in the bundle (memory stays disabled there)`);
    }
    const settled = await Promise.allSettled(downloads);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;

    // 2. Our Node for this machine (from the bundle when it is one of the targets), then the registry npm's configuration names.
    const hostSource: Source = targets.includes(options.hostTarget) ? { kind: "folder", root: staging } : source;
    await ensureRuntimes({ layout, pins, source: hostSource, target: options.hostTarget, env }, { pnpm: false });
    const registry = npmrcRegistry(npmrc) ?? (await configuredRegistry(layout, npmrc, env));

    // 3. pnpm into the bundle, then into the throwaway prefix from there.
    const pnpmSource: Source = source.kind === "official" ? { kind: "official", registry } : source;
    await fetchInto(pnpmSource, pins.pnpm.file, expectedFor(`pnpm ${pins.pnpm.version}`, pins.pnpm.file, pins.pnpm.integrity));
    await ensureRuntimes({ layout, pins, source: { kind: "folder", root: staging }, target: options.hostTarget, env });

    // 4. The release: its two assets byte for byte, read as any install reads them.
    const shell = options.release ?? (await latestRelease(registry, npmrc, env));
    const releaseSource: Source = source.kind === "official" ? { kind: "official", registry } : source;
    const assets = await fetchDistributionAssets(releaseSource, shell, layout.tmp);
    const { manifest: release } = assets.distribution;
    await fs.mkdir(join(staging, "releases", `v${shell}`), { recursive: true, mode: 0o755 });
    await fs.writeFile(join(staging, releasePath(shell, DISTRIBUTION_JSON)), assets.json, { mode: 0o644 });
    await fs.writeFile(join(staging, releasePath(shell, DISTRIBUTION_LOCK)), assets.lock, { mode: 0o644 });
    log(`release: gentle-pi ${release.shell} with Pi ${release.pi}`);

    // 5. The store: our pnpm fetches every package of the lockfile for the targets' systems.
    const project = join(layout.tmp, "fetch");
    await fs.mkdir(project, { recursive: true, mode: 0o700 });
    await fs.writeFile(join(project, "package.json"), assets.distribution.files["package.json"]);
    await fs.writeFile(join(project, "pnpm-workspace.yaml"), assets.distribution.files["pnpm-workspace.yaml"]);
    await fs.writeFile(join(project, "pnpm-lock.yaml"), assets.distribution.lockfile);
    const fetched = await run(layout.node, [layout.pnpmEntry, "fetch", ...fetchSystemFlags(targets)], {
      cwd: project,
      env: pnpmEnvironment(layout, { env, npmrc }),
      echo: options.verbose,
      timeoutMs: 30 * 60_000,
    });
    if (fetched.code !== 0) throw new Error(`pnpm fetch failed for ${release.id}:\n${outputTail(fetched)}`);
    const storeTop = (await fs.readdir(layout.pnpm.store)).sort();
    if (!storeTop.length) throw new Error("pnpm fetch left the store empty");
    // pnpm's projects/ (links to the projects that used the store) is this throwaway prefix's business; nothing else may be a link.
    const links: string[] = [];
    await tar.c(
      {
        gzip: { level: 6 },
        file: join(staging, BUNDLE_STORE),
        cwd: layout.pnpm.store,
        portable: true,
        filter: (path, stat) => {
          if (/^(\.\/)?v\d+\/projects(\/|$)/.test(path)) return false;
          if ("isSymbolicLink" in stat && stat.isSymbolicLink()) {
            links.push(path);
            return false;
          }
          return true;
        },
      },
      storeTop,
    );
    if (links.length) throw new Error(`pnpm's store holds links (${links.slice(0, 3).join(", ")}); the bundle's store would not install`);
    await fs.chmod(join(staging, BUNDLE_STORE), 0o644);
    log(`pnpm store: ${BUNDLE_STORE}`);

    // 6. The installer binaries at hand.
    for (const [target, file] of Object.entries(options.binaries) as [Target, string][]) {
      if (!targets.includes(target)) continue;
      await fs.copyFile(file, join(staging, installerName(target)));
      await fs.chmod(join(staging, installerName(target)), 0o755);
    }

    // 7. Manifest, README, SHA256SUMS over everything else.
    const manifest: BundleManifest = {
      schema: 1,
      shell: release.shell,
      pi: release.pi,
      id: release.id,
      targets,
      store: BUNDLE_STORE,
      files: [],
    };
    await fs.writeFile(join(staging, BUNDLE_README), readme(manifest), { mode: 0o644 });
    manifest.files = [...(await listFiles(staging)), BUNDLE_MANIFEST].sort();
    await fs.writeFile(join(staging, BUNDLE_MANIFEST), JSON.stringify(manifest, null, 2) + "\n", { mode: 0o644 });
    const sums = new Map<string, string>();
    let bytes = 0;
    for (const rel of manifest.files) {
      sums.set(rel, await sha256File(join(staging, rel)));
      bytes += (await fs.stat(join(staging, rel))).size;
    }
    await fs.writeFile(join(staging, BUNDLE_SUMS), formatSums(sums), { mode: 0o644 });

    if (existing) await fs.rmdir(out);
    await fs.rename(staging, out);
    return { out, manifest, bytes, notes };
  } finally {
    await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
    await fs.rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }
}
