/**
 * `gentle-shell-setup verify <bundle>`: a whole offline bundle checked from
 * a trusted copy of the installer, before anything on the stick is run. The
 * root of trust is the binary running this (its compiled-in pins and release
 * keys); nothing in the bundle vouches for itself:
 *
 * - the signed release manifest, under a compiled-in key, and through it the
 *   two distribution assets, the engine, and every setup binary and
 *   install.ps1 in the bundle (each must be one the release lists);
 * - the runtimes (Node, pnpm, Go, Engram) against the compiled-in pins;
 * - every package tarball against the signed lockfile's integrity, and no
 *   tarball the lockfile does not name;
 * - the launchers install.sh and install.cmd byte for byte against the ones
 *   this binary writes (./launchers.ts).
 *
 * Any other file is reported: a bundle holds nothing its checks do not
 * cover, but README.txt and SHA256SUMS, which are only text.
 */
import { PI_TOOLS, toolPin } from "../../core/pi-tool-rules";
import { promises as fs } from "node:fs";
import { join, relative } from "../../core/native-path";
import { lockedPackages, packagesForTargets, tarballPath } from "../../core/lockfile";
import { ENGINE_ASSET, RELEASE_MANIFEST, RELEASE_SIGNATURE } from "../../core/release-manifest";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK } from "../../core/release-project";
import { releasePath } from "../../core/source";
import type { FilePin, Pins } from "../../pins/types";
import { verifyFile, type Expected } from "../../io/download";
import { BUNDLE_MANIFEST, BUNDLE_PACKAGES, BUNDLE_README, BUNDLE_SUMS, installerName, PACKAGE_MAX } from "./format";
import { BUNDLE_LAUNCHERS } from "./launchers";
import { openBundle, readBundleRelease } from "./open";
import type { HttpClient } from "../../io/http-client";

export interface BundleCheck {
  ok: boolean;
  /** One line per thing checked: what it is, and whether it passed. */
  lines: string[];
  problems: string[];
}

async function listFiles(root: string, dir = root): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(root, path)));
    else out.push(relative(root, path));
  }
  return out;
}

function pinExpected(name: string, pin: FilePin, integrity?: string | null): Expected {
  return { name, sha256: pin.sha256, size: pin.size, maxBytes: pin.maxBytes, ...(integrity ? { integrity } : {}) };
}

/** `http`: the Host's client, which a bundle's folder never needs (its release is read as a folder source). */
export async function verifyBundle(root: string, pins: Pins, http: HttpClient): Promise<BundleCheck> {
  const lines: string[] = [];
  const problems: string[] = [];
  const bundle = await openBundle(root, null);
  if (!bundle) throw new Error(`${root} is not an offline bundle (it has no ${BUNDLE_MANIFEST})`);
  // 1. The signed release, before anything else is read.
  const release = await readBundleRelease(bundle, pins, () => null, http);
  const { shell, pi } = release.signed;
  lines.push(`signed release: Gentle Shell ${shell} with Pi ${pi}, signature verified (key ${release.signed.key})`);
  lines.push(`${DISTRIBUTION_JSON}, ${DISTRIBUTION_LOCK} and ${ENGINE_ASSET}: as the signed manifest lists them`);
  const covered = new Set<string>([BUNDLE_MANIFEST, BUNDLE_SUMS, BUNDLE_README]);
  for (const name of [RELEASE_MANIFEST, RELEASE_SIGNATURE, DISTRIBUTION_JSON, DISTRIBUTION_LOCK, ENGINE_ASSET]) covered.add(releasePath(shell, name));

  /** `what` says what the file must be ("Node 24.21.0 for linux-x64, as pinned"); a mismatch is reported as "<rel> is not <what>". */
  const check = async (rel: string, expected: Expected, what: string, quiet = false): Promise<boolean> => {
    covered.add(rel);
    const file = join(root, rel);
    const stat = await fs.lstat(file).catch(() => null);
    if (!stat?.isFile()) {
      problems.push(`${rel} (${what}) is missing or not a regular file`);
      return false;
    }
    try {
      await verifyFile(file, expected);
      if (!quiet) lines.push(`${rel}: ${what}`);
      return true;
    } catch (error) {
      const size = /not the size/.test((error as Error).message) ? " (its size differs)" : "";
      problems.push(`${rel} is not ${what.replace(/, as /, " as ")}${size}`);
      return false;
    }
  };

  // 2. Setup binaries and installer scripts: only the release's own.
  const top = await fs.readdir(root);
  for (const name of top.filter((n) => /^gentle-shell-setup-/.test(n) || n === "install.ps1")) {
    const entry = release.signed.assets[name];
    if (!entry) {
      covered.add(name);
      problems.push(`${name} is not part of the signed release ${shell}: do not run it`);
      continue;
    }
    if (!(await check(name, { name, sha256: entry.sha256, size: entry.size, maxBytes: entry.size }, "the release's own, as signed"))) {
      problems[problems.length - 1] += ": do not run it";
    }
  }

  // 3. The launchers at the root (./launchers.ts): byte for byte the ones this gentle-shell-setup writes.
  for (const { name, text } of BUNDLE_LAUNCHERS) {
    if (!top.includes(name)) continue;
    covered.add(name);
    const bytes = await fs.lstat(join(root, name)).then(
      (stat) => (stat.isFile() ? fs.readFile(join(root, name)) : null),
      () => null,
    );
    if (bytes?.equals(Buffer.from(text, "utf8"))) lines.push(`${name}: the bundle's launcher, as this gentle-shell-setup writes it`);
    else problems.push(`${name} is not the bundle's launcher as this gentle-shell-setup writes it: do not run it`);
  }

  // 4. The runtimes, against the pins this binary was built with.
  await check(pins.pnpm.file.path, pinExpected(`pnpm ${pins.pnpm.version}`, pins.pnpm.file, pins.pnpm.integrity), `pnpm ${pins.pnpm.version}, as pinned`);
  for (const target of bundle.manifest.targets) {
    if (!top.includes(installerName(target))) lines.push(`note: no ${installerName(target)} in the bundle; bring a trusted one for ${target}`);
    const node = pins.node.archives[target];
    if (node?.sha256) await check(node.path, pinExpected(`Node ${pins.node.version} (${target})`, node), `Node ${pins.node.version} for ${target}, as pinned`);
    else problems.push(`this gentle-shell-setup has no pinned Node for ${target}, so the bundle's cannot be checked`);
    const go = pins.go.archives[target];
    if (target.startsWith("win-") && go)
      await check(go.path, pinExpected(`Go ${pins.go.version} (${target})`, go), `Go ${pins.go.version} for ${target}, as pinned`);
    const engram = pins.engram.archives[target];
    if (engram?.sha256 && (await fs.lstat(join(root, engram.path)).catch(() => null))) {
      await check(engram.path, pinExpected(`Engram ${pins.engram.version} (${target})`, engram), `Engram ${pins.engram.version} for ${target}, as pinned`);
    }
    for (const tool of PI_TOOLS) {
      const { version, archives } = toolPin(pins, tool);
      const pin = archives[target];
      if (pin?.sha256 && (await fs.lstat(join(root, pin.path)).catch(() => null))) {
        await check(pin.path, pinExpected(`${tool.name} ${version} (${target})`, pin), `${tool.name} ${version} for ${target}, as pinned`);
      }
    }
  }

  // 5. Every package tarball the targets install, against the signed lockfile; nothing else under packages/.
  const wanted = packagesForTargets(lockedPackages(release.distribution.lockfile), bundle.manifest.targets);
  let good = 0;
  for (const pkg of wanted) {
    const rel = `${BUNDLE_PACKAGES}/${tarballPath(pkg)}`;
    if (
      await check(
        rel,
        { name: `${pkg.name}@${pkg.version}`, integrity: pkg.integrity, maxBytes: PACKAGE_MAX },
        `${pkg.name}@${pkg.version} as the signed lockfile records it`,
        true,
      )
    )
      good++;
  }
  lines.push(`${good} of ${wanted.length} packages: as the signed lockfile records them`);

  // 6. Nothing the checks above did not cover.
  for (const rel of await listFiles(root)) {
    if (covered.has(rel)) continue;
    problems.push(
      rel.startsWith(`${BUNDLE_PACKAGES}/`) ? `${rel} is not a package of the signed lockfile` : `${rel} is not part of the release or its pinned runtimes`,
    );
  }
  return { ok: problems.length === 0, lines, problems };
}
