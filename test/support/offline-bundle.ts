/**
 * An offline bundle made by the fixture single executable, for the offline
 * tests (integration/offline.test.ts: making and reading one;
 * integration/offline-install.test.ts: installing and upgrading from one with
 * no network). Each file makes its own in a scratch folder; `offline` runs a
 * script inside `unshare -n` (root: a network namespace with nothing in it,
 * not even a loopback that is up) over the bundle folder bind-mounted
 * read-only. The namespace's loopback is brought up: the installer hands the
 * bundle's package tarballs to pnpm from 127.0.0.1.
 */
import { expect } from "vitest";
import { createHash } from "node:crypto";
import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { BUNDLE_PACKAGES, BUNDLE_SUMS } from "../../src/install/offline/format";
import { lockedPackages, tarballPath } from "../../src/core/lockfile";
import { DISTRIBUTION_LOCK } from "../../src/core/release-project";
import { fixtures } from "./context";
import { homeEnv } from "./fixtures";
import { scratchHome } from "./home";
import { runCommand, runChecked } from "./proc";
import { listTree } from "./tarball";

/** The fixture run's newest release in a bundle under a new scratch folder; `make()` writes it (in a beforeAll). */
export function offlineBundle() {
  const f = fixtures();
  const release = f.releases[f.releases.length - 1]!;
  const root = mkdtempSync(join(tmpdir(), "gss-offline-"));
  const bundle = join(root, "bundle");
  const nodePath = f.pins.node.archives["linux-x64"]!.path;
  const binaryName = "gentle-shell-setup-linux-x64";
  const releaseDir = `releases/v${release.shell}`;

  /** A home in the bundle's scratch folder; its ~/.npmrc names the registry, as on the machine the stick came from (inside the namespace nothing answers). */
  function newHome(name: string, options: { registry: boolean } = { registry: true }): Promise<string> {
    return scratchHome({ parent: root, name, registry: options.registry ? f.registryUrl : undefined });
  }

  /**
   * Run `script` (sh, with the bundle folder as $1) in new network and mount
   * namespaces, the bundle folder bind-mounted read-only over itself. A missing
   * unshare fails the test (spawn error), never skips it.
   */
  function offline(dir: string, home: string, script: string) {
    const prelude = 'ip link set lo up && mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && cd "$1" || exit 97\n';
    return runCommand("unshare", ["--net", "--mount", "sh", "-c", prelude + script, "sh", dir], {
      env: homeEnv(home, { SHELL: "/bin/bash" }),
      cwd: home,
    });
  }

  /** A copy of the bundle (hard links) with one byte flipped in `rel` (a new file, so the original keeps its bytes). */
  async function tamperedCopy(name: string, rel: string): Promise<string> {
    const copy = join(root, name);
    await runChecked("cp", ["-al", bundle, copy]);
    const bytes = await fs.readFile(join(copy, rel));
    const at = Math.floor(bytes.length / 2);
    bytes[at] = bytes[at]! ^ 0x01;
    await fs.writeFile(join(copy, `${rel}.new`), bytes);
    await fs.rename(join(copy, `${rel}.new`), join(copy, rel));
    return copy;
  }

  /** `gentle-shell-setup bundle` from the fixture mirror; the bundle's packages, its SHA256SUMS and its tree as made. */
  async function make() {
    const maker = await newHome("maker");
    const made = await runCommand(f.binary!, ["bundle", "--out", bundle, "--source", f.mirrorUrl, "--release", release.shell], {
      env: homeEnv(maker),
      cwd: maker,
    });
    if (made.code !== 0) throw new Error(`bundle failed:\n${made.stdout}\n${made.stderr}`);
    const packages = lockedPackages(await fs.readFile(join(f.mirrorRoot, releaseDir, DISTRIBUTION_LOCK), "utf8"));
    const sumsBefore = await fs.readFile(join(bundle, BUNDLE_SUMS), "utf8");
    const treeBefore = await listTree(bundle);
    return { made, packages, sumsBefore, treeBefore };
  }

  /** A copy with one flipped byte in the gentle-pi tarball of `packages`. */
  function tamperedPackage(packages: ReturnType<typeof lockedPackages>): Promise<string> {
    return tamperedCopy("tampered-package", `${BUNDLE_PACKAGES}/${tarballPath(packages.find((p) => p.name === "gentle-pi")!)}`);
  }

  async function cleanUp() {
    await runCommand("chmod", ["-R", "u+w", root]);
    await fs.rm(root, { recursive: true, force: true });
  }

  return { f, release, root, bundle, nodePath, binaryName, releaseDir, newHome, offline, tamperedCopy, tamperedPackage, make, cleanUp };
}

export async function sha256(path: string): Promise<string> {
  return createHash("sha256")
    .update(await fs.readFile(path))
    .digest("hex");
}

/** Nothing of an install is in `home`'s prefix: no runtime, version, current, launcher or store. */
export async function nothingPublished(home: string) {
  const prefix = join(home, ".gentle-shell");
  const runtime = await fs.readdir(join(prefix, "runtime")).catch(() => [] as string[]);
  expect(runtime.filter((n) => !n.startsWith("."))).toEqual([]);
  expect(await fs.readdir(join(prefix, "versions")).catch(() => [] as string[])).toEqual([]);
  expect(await fs.lstat(join(prefix, "current")).catch(() => null)).toBeNull();
  expect(await fs.lstat(join(prefix, "bin", "gentle-shell")).catch(() => null)).toBeNull();
  expect(await fs.lstat(join(prefix, "pnpm", "store")).catch(() => null)).toBeNull();
}
