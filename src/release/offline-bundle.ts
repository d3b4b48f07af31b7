/**
 * Making an offline bundle, `gentle-shell-setup bundle` (design: "Sources:
 * one layout for official, mirror and offline"; spec: "One lockfile for every
 * system", "pnpm environment"). The format is src/install/offline/format.ts.
 *
 * - The pinned artifacts are fetched through the same sources as any install
 *   and verified against the compiled-in pins as they arrive.
 * - The release comes through its signed manifest, byte for byte.
 * - The packages are the registry tarballs themselves (./package-download.ts), each
 *   checked against the signed lockfile's integrity, so a bundle stays
 *   verifiable offline down to every package; an extracted pnpm store could
 *   not be (a forged store index can map the right integrity to other files).
 *   Only what the targets' systems install is taken (npm's os/cpu/libc).
 * - A throwaway prefix under the system temp folder holds our Node, which
 *   asks our npm for the registry when the npm settings name none.
 * - A bundle is made in a staging folder beside --out and appears with one
 *   rename, so a failed or interrupted run leaves no half bundle.
 */
import { PI_TOOLS, toolPin } from "../core/pi-tool-rules";
import { promises as fs } from "node:fs";
import { basename, dirname, join, relative, resolve } from "../core/native-path";
import { prefixLayout, type Platform } from "../core/layout";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK } from "../core/release-project";
import { npmrcRegistry } from "../core/npmrc";
import type { Env } from "../core/environment";
import { parseSource, releasePath, type Source } from "../core/source";
import type { FilePin, Pins, Target } from "../pins/types";
import type { Expected } from "../io/download";
import { lstatOrNull } from "../io/files";
import { sha256OfFile } from "../io/file-tree";
import { publishByRename, stagingPath, sweepAbandoned, temporaryFolder } from "../io/staging";
import type { ProgressReporter } from "../io/progress";
import { fetchArtifact } from "../install/artifact-fetch";
import { ensureRuntimes } from "../install/runtime/index";
import { newestRelease, openRelease, type ReleaseOrigin } from "../install/release-origin";
import { checkAsset, ENGINE_ASSET, RELEASE_MANIFEST, RELEASE_SIGNATURE } from "../core/release-manifest";
import { trustRegistries, userRegistrySettings, writeNpmrcAuth } from "../install/npm-settings";
import type { HttpClient } from "../io/http-client";
import { configuredRegistry } from "../install/npm-registry";
import { downloadPackages } from "./package-download";
import { BUNDLE_LAUNCHERS } from "../install/offline/launchers";
import {
  BUNDLE_MANIFEST,
  BUNDLE_README,
  BUNDLE_SUMS,
  bundleReadme,
  formatSums,
  installerName,
  parseSums,
  type BundleManifest,
} from "../install/offline/format";
import { rename, rm, rmdir } from "../io/locked-retry";

export interface MakeBundleOptions {
  out: string;
  pins: Pins;
  env: Env;
  /** The Host's HTTP client, which every download of the bundle goes through. */
  http: HttpClient;
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
  /** The running engine script, used when it is the one the release lists (else the release's is downloaded). */
  ownEngine: () => string | null;
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
      if (want && (await sha256OfFile(beside)) !== want) {
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

/** gentle-shell-setup bundle: everything an offline install needs, in one folder. */
export async function makeBundle(options: MakeBundleOptions): Promise<MadeBundle> {
  const { pins, env, http, log } = options;
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
  // A run killed before its cleanup left its partial bundle and its scratch prefix: swept here, by their dead owner's pid.
  await sweepAbandoned(dirname(out), ["partial"]);
  const staging = stagingPath(dirname(out), "partial", { label: basename(out) });
  const scratch = await temporaryFolder("gss-bundle");
  const notes: string[] = [];
  try {
    await fs.mkdir(staging, { mode: 0o755 });
    // A throwaway prefix: its own runtimes, npm settings and pnpm store, removed at the end.
    const layout = prefixLayout({ home: scratch, platform: options.platform, pins });
    await fs.mkdir(layout.prefix, { recursive: true, mode: 0o700 });
    const { npmrc } = await userRegistrySettings(env, options.home);
    await writeNpmrcAuth(layout, npmrc);

    const fetchInto = async (from: Source, pin: FilePin, expected: Expected) => {
      const dest = join(staging, pin.path);
      await fs.mkdir(dirname(dest), { recursive: true, mode: 0o755 });
      const handle = options.progress?.start(expected.name);
      const file = await fetchArtifact(http, from, pin.path, dirname(dest), expected, handle ? { download: { progress: handle } } : {});
      await rename(file, dest);
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
      // Pi's own tools, when pinned: the launcher provisions them from the bundle; otherwise Pi looks for them itself.
      for (const tool of PI_TOOLS) {
        const { version, archives } = toolPin(pins, tool);
        const pin = archives[target];
        if (pin?.sha256) downloads.push(fetchInto(source, pin, expectedFor(`${tool.name} ${version} (${target})`, pin)));
        else notes.push(`${tool.name} ${version} for ${target} has no pinned checksum in this build: not in the bundle (Pi looks for it itself there)`);
      }
    }
    const settled = await Promise.allSettled(downloads);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;

    // 2. Our Node for this machine (from the bundle when it is one of the targets), then the registry npm's configuration names.
    const hostSource: Source = targets.includes(options.hostTarget) ? { kind: "folder", root: staging } : source;
    await ensureRuntimes({ http, layout, pins, source: hostSource, target: options.hostTarget, env }, { pnpm: false });
    const registry = npmrcRegistry(npmrc, env) ?? (await configuredRegistry(layout, npmrc, env));
    // What comes from the registry (pnpm, the release list, the packages) with the authorities the npm settings name for it.
    await trustRegistries(http, [registry], npmrc, env);

    // 3. pnpm into the bundle.
    const pnpmSource: Source = source.kind === "official" ? { kind: "official", registry } : source;
    await fetchInto(pnpmSource, pins.pnpm.file, expectedFor(`pnpm ${pins.pnpm.version}`, pins.pnpm.file, pins.pnpm.integrity));

    // 4. The release, through its signed manifest: the manifest, its signature, the two assets and the engine byte for byte.
    const origin: ReleaseOrigin = { kind: "online", source };
    const shell = options.release ?? (await newestRelease(origin, { registry, npmrc, env, http }));
    const { release: assets } = await openRelease(origin, shell, { pins, target: options.hostTarget, ownEngine: options.ownEngine, registry, http });
    const { manifest: release } = assets.distribution;
    await fs.mkdir(join(staging, "releases", `v${shell}`), { recursive: true, mode: 0o755 });
    for (const [name, bytes] of [
      [RELEASE_MANIFEST, assets.manifest],
      [RELEASE_SIGNATURE, assets.signature],
      [DISTRIBUTION_JSON, assets.json],
      [DISTRIBUTION_LOCK, assets.lock],
      [ENGINE_ASSET, assets.engine],
    ] as const) {
      await fs.writeFile(join(staging, releasePath(shell, name)), bytes, { mode: 0o644 });
    }
    log(`release: gentle-pi ${release.shell} with Pi ${release.pi}, signature verified (key ${assets.signed.key})`);

    // 5. The packages: every registry tarball of the signed lockfile the targets install, checked against its integrity.
    let last = 0;
    const packages = await downloadPackages({
      lockfile: assets.distribution.lockfile,
      targets,
      registry,
      npmrc,
      env,
      http,
      into: staging,
      onDone: (done, total) => {
        if (done === total || done - last >= 25) {
          last = done;
          log(`packages: ${done} of ${total} verified against the signed lockfile`);
        }
      },
    });

    // 6. The installer binaries at hand: only the release's own, as its signed manifest lists them.
    for (const [target, file] of Object.entries(options.binaries) as [Target, string][]) {
      if (!targets.includes(target)) continue;
      const name = installerName(target);
      if (!assets.signed.assets[name]) {
        notes.push(`${name} at hand is not part of the signed release ${shell}, so it was left out: copy the release's own into the bundle`);
        continue;
      }
      checkAsset(assets.signed, name, await fs.readFile(file), file);
      await fs.copyFile(file, join(staging, name));
      await fs.chmod(join(staging, name), 0o755);
    }

    // 7. The launchers a person double-clicks (../install/offline/launchers.ts): the same bytes in every bundle, which verify checks.
    for (const launcher of BUNDLE_LAUNCHERS) {
      await fs.writeFile(join(staging, launcher.name), launcher.text, { mode: launcher.mode });
      await fs.chmod(join(staging, launcher.name), launcher.mode);
    }

    // 8. Manifest, README, SHA256SUMS over everything else.
    const manifest: BundleManifest = {
      schema: 2,
      shell: release.shell,
      pi: release.pi,
      id: release.id,
      targets,
      packages: packages.length,
      files: [],
    };
    await fs.writeFile(join(staging, BUNDLE_README), bundleReadme(manifest), { mode: 0o644 });
    manifest.files = [...(await listFiles(staging)), BUNDLE_MANIFEST].sort();
    await fs.writeFile(join(staging, BUNDLE_MANIFEST), JSON.stringify(manifest, null, 2) + "\n", { mode: 0o644 });
    const sums = new Map<string, string>();
    let bytes = 0;
    for (const rel of manifest.files) {
      sums.set(rel, await sha256OfFile(join(staging, rel)));
      bytes += (await fs.stat(join(staging, rel))).size;
    }
    await fs.writeFile(join(staging, BUNDLE_SUMS), formatSums(sums), { mode: 0o644 });

    if (existing) await rmdir(out);
    await publishByRename(staging, out);
    return { out, manifest, bytes, notes };
  } finally {
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }
}
