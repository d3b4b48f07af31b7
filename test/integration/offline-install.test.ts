/**
 * Offline bundles, end to end on the fixture single executable: `install
 * --source <bundle>` and `upgrade --source <bundle>` inside `unshare -n`
 * (root: a network namespace with nothing in it, not even a loopback that is
 * up), from a bundle folder that is read-only for real (a read-only bind
 * mount in a mount namespace, and chmod -R a-w). The namespace's loopback is
 * brought up: the installer hands the bundle's package tarballs to pnpm from
 * 127.0.0.1. A damaged or altered bundle (one flipped byte in a package, the
 * Node archive, the lockfile, the engine or the signed manifest) is refused
 * with a clear message and publishes nothing. Making and reading a bundle:
 * offline.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installed } from "../support/installed";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { homeEnv } from "../support/fixtures";
import { runCommand, runChecked } from "../support/proc";
import { listTree } from "../support/tarball";
import { nothingPublished, offlineBundle, sha256 } from "../support/offline-bundle";
import { BUNDLE_SUMS } from "../../src/install/offline/format";
import { ENGINE_ASSET, RELEASE_MANIFEST } from "../../src/core/release-manifest";
import { DISTRIBUTION_LOCK } from "../../src/core/release-project";
import { BUNDLE_INSTALL_SH } from "../../src/install/offline/launchers";

const {
  f,
  release,
  root,
  bundle,
  nodePath,
  binaryName,
  releaseDir,
  newHome,
  offline,
  tamperedCopy,
  tamperedPackage: tamperPackage,
  make,
  cleanUp,
} = offlineBundle();

let tamperedPackage: string;
let tamperedNode: string;
let packages: Awaited<ReturnType<typeof make>>["packages"];
let sumsBefore: string;
let treeBefore: string[];

beforeAll(async () => {
  ({ packages, sumsBefore, treeBefore } = await make());
  tamperedPackage = await tamperPackage(packages);
  tamperedNode = await tamperedCopy("tampered-node", nodePath);
});

afterAll(cleanUp);

describe("gentle-shell-setup install --source <bundle> with no network", () => {
  it("the namespace really has no network: the fixture registry does not answer there", async () => {
    const r = await runCommand(
      "unshare",
      ["--net", process.execPath, "-e", `fetch(${JSON.stringify(f.registryUrl)}).then(() => process.exit(0), () => process.exit(7))`],
      {},
    );
    expect(r.code).toBe(7);
  });

  it("refuses a bundle whose gentle-pi tarball has one flipped byte (the signed lockfile decides), and publishes nothing", async () => {
    const home = await newHome("home-tampered-package");
    const r = await offline(tamperedPackage, home, `exec ./${binaryName} install --yes --source .`);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /✖ runtime failed: packages\/gentle-pi\/-\/gentle-pi-4\.1\.0\.tgz in the offline bundle is not gentle-pi@4\.1\.0 as the signed lockfile records it: the bundle is damaged or altered; nothing was installed from it/,
    );
    expect(r.stdout).toContain("Gentle Shell was not installed: the runtime step failed.");
    await nothingPublished(home);
  });

  it.each([
    ["the lockfile", DISTRIBUTION_LOCK, `${DISTRIBUTION_LOCK} from`],
    ["the engine", ENGINE_ASSET, `${ENGINE_ASSET} from`],
    ["the signed manifest", RELEASE_MANIFEST, "does not verify: the release was altered"],
  ])("refuses a bundle with one flipped byte in %s, and publishes nothing", async (what, name, said) => {
    const copy = await tamperedCopy(`tampered-${name}`, `${releaseDir}/${name}`);
    const home = await newHome(`home-tampered-${name}`);
    const r = await offline(copy, home, `exec ./${binaryName} install --yes --source .`);
    expect(r.code, what).toBe(1);
    expect(r.stdout).toContain(said);
    expect(r.stdout).toContain("nothing was installed from the offline bundle");
    await nothingPublished(home);
  });

  it("refuses a bundle whose Node archive has one flipped byte (the pin, not SHA256SUMS, decides), and publishes nothing", async () => {
    const home = await newHome("home-tampered-node");
    // SHA256SUMS is made to agree with the tampered archive: the compiled-in pin still refuses it.
    const sums = join(tamperedNode, BUNDLE_SUMS);
    const text = (await fs.readFile(sums, "utf8")).replace(/^[0-9a-f]{64}(?= {2}node\/)/m, await sha256(join(tamperedNode, nodePath)));
    await fs.rm(sums);
    await fs.writeFile(sums, text);
    const r = await offline(tamperedNode, home, `exec ./${binaryName} install --yes --source .`);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✖ runtime failed: .*does not match the pinned sha256 of Node 24\.21\.0 \(linux-x64\)/);
    await nothingPublished(home);
  });

  it("installs from a read-only bundle: the launcher reports the release and gentle-pi's build ran; the bundle is unchanged", async () => {
    await runChecked("chmod", ["-R", "a-w", bundle]);
    const home = await newHome("home-offline");
    const r = await offline(
      bundle,
      home,
      [
        `./${binaryName} install --yes --source . || exit $?`,
        // Still with no network: the installed launcher.
        `exec "$HOME/.gentle-shell/bin/gentle-shell" --version`,
      ].join("\n"),
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^✔ runtime: Node 24\\.21\\.0 installed, pnpm 11\\.1\\.1 installed; offline bundle 4\\.1\\.0-1\\.6\\.0, its signature and ${packages.length} packages verified$`,
        "m",
      ),
    );
    expect(r.stdout).toContain(`✔ version: gentle-pi ${release.shell} with Pi ${release.pi} installed in versions/${release.id} offline`);
    expect(r.stdout).toContain(`✔ verify-launcher: gentle-shell ${release.shell}, pi ${release.pi}`);
    expect(r.stdout.trim().split("\n").slice(-2)).toEqual([`gentle-shell ${release.shell}`, `pi ${release.pi}`]);
    const version = join(home, ".gentle-shell", "versions", release.id);
    expect((await fs.stat(join(version, "node_modules", "gentle-pi", "bin", "gentle-ai"))).isFile()).toBe(true);
    // Setup provisioned Pi's own fd and rg from the bundle, with no network, each with our marker.
    expect((await fs.readdir(join(home, ".gentle-shell", "agent", "bin"))).sort()).toEqual([".gentle-shell-fd", ".gentle-shell-rg", "fd", "rg"]);
    // The store is the prefix's now, and writable by its user.
    expect((await fs.stat(join(home, ".gentle-shell", "pnpm", "store", "v11", "index.db"))).mode & 0o200).toBe(0o200);
    // Nothing was written into the bundle.
    expect(await listTree(bundle)).toEqual(treeBefore);
    expect(await fs.readFile(join(bundle, BUNDLE_SUMS), "utf8")).toBe(sumsBefore);
    await runChecked("sha256sum", ["--strict", "--quiet", "-c", BUNDLE_SUMS], { cwd: bundle });

    expect(r.stdout).toContain(`${packages.length} package(s) taken from the bundle (0 already in the store), each checked against the signed lockfile`);
    // Again: everything is reused, and nothing is served a second time.
    const again = await offline(bundle, home, `exec ./${binaryName} install --yes --source "$1"`);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`✔ version: gentle-pi ${release.shell} with Pi ${release.pi} reused in versions/${release.id} offline\n`);
  });

  it("with a corporate proxy still set (and unreachable offline), installs: the bundle's loopback registry is never sent to a proxy", async () => {
    const home = await newHome("home-offline-proxy");
    const r = await offline(
      bundle,
      home,
      [
        // A laptop that left the office: its proxy variables stay, and nothing answers at that address.
        "export HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9",
        `./${binaryName} install --yes --no-setup --source . || exit $?`,
        `exec "$HOME/.gentle-shell/bin/gentle-shell" --version`,
      ].join("\n"),
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`✔ version: gentle-pi ${release.shell} with Pi ${release.pi} installed in versions/${release.id} offline`);
    expect(r.stdout.trim().split("\n").slice(-2)).toEqual([`gentle-shell ${release.shell}`, `pi ${release.pi}`]);
  });

  it("install.sh, from a copy of the bundle in a folder named with a space, a quote and a non-ASCII letter, installs from that folder", async () => {
    const stick = join(root, `USB "Stick" Ärger`);
    await fs.mkdir(stick);
    const copy = join(stick, "gs bundle");
    await runChecked("cp", ["-a", bundle, copy]);
    // A machine whose npm settings name no registry (npm's own default): the install asks our npm which one it
    // reports, with no network, and records it for the first launch's offer.
    const home = await newHome("home-launcher", { registry: false });
    // Started by path from elsewhere, as a file manager would, under dash (sh here).
    const r = await offline(copy, home, `cd / && sh "$1/${BUNDLE_INSTALL_SH}" --yes || exit $?\nexec "$HOME/.gentle-shell/bin/gentle-shell" --version`);
    expect(r.stderr).toBe("");
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^✔ runtime: .*offline bundle ${release.id.replace(/\./g, "\\.")}, its signature and ${packages.length} packages verified$`, "m"),
    );
    expect(r.stdout).toContain(`✔ version: gentle-pi ${release.shell} with Pi ${release.pi} installed in versions/${release.id} offline`);
    expect(r.stdout.trim().split("\n").slice(-2)).toEqual([`gentle-shell ${release.shell}`, `pi ${release.pi}`]);
    // The source the install recorded is the copy's folder, spelled as it is mounted.
    expect(await fs.readFile(join(home, ".gentle-shell", "config", "install-source"), "utf8")).toBe(`${copy}\n`);
    const record = join(home, ".gentle-shell", "npm", "registry.json");
    expect(JSON.parse(await fs.readFile(record, "utf8"))).toEqual({
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      registry: expect.stringMatching(/^https?:\/\//),
    });
    expect((await fs.stat(record)).mode & 0o777).toBe(0o600);
  });

  it("install.sh refuses in one sentence when the bundle has no binary for this machine, and runs nothing", async () => {
    const copy = join(root, "no-binary");
    await runChecked("cp", ["-al", bundle, copy]);
    await fs.rm(join(copy, binaryName), { force: true });
    const home = await newHome("home-no-binary");
    const r = await runCommand("sh", [join(copy, BUNDLE_INSTALL_SH), "--yes"], { env: homeEnv(home), cwd: home });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `gentle-shell-setup: this bundle has no ${binaryName} for this machine (linux-x64): make one with --target linux-x64, or run a gentle-shell-setup you trust with: install --source "${copy}"\n`,
    );
    expect(await fs.lstat(join(home, ".gentle-shell")).catch(() => null)).toBeNull();
  });

  it("adds to a prefix's own pnpm store and keeps what is in it", async () => {
    const home = await newHome("home-with-store");
    const store = join(home, ".gentle-shell", "pnpm", "store");
    await fs.mkdir(store, { recursive: true, mode: 0o700 });
    await fs.chmod(join(home, ".gentle-shell"), 0o700);
    await fs.writeFile(join(store, "kept"), "the user's store\n");
    const r = await offline(bundle, home, `exec ./${binaryName} install --yes --source "$1"`);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`✔ version: gentle-pi ${release.shell} with Pi ${release.pi} installed in versions/${release.id} offline`);
    expect((await fs.readdir(store)).sort()).toEqual(["kept", "v11"]);
    expect(await fs.readFile(join(store, "kept"), "utf8")).toBe("the user's store\n");
    const r2 = await runCommand(join(home, ".gentle-shell", "bin", "gentle-shell"), ["--version"], { env: homeEnv(home) });
    expect(r2.stdout.split("\n").slice(0, 2)).toEqual([`gentle-shell ${release.shell}`, `pi ${release.pi}`]);
  });
});

describe("gentle-shell upgrade --source <bundle> with no network", () => {
  it("upgrades to the bundle's release without asking any registry, and publishes the bundle's Engram", async () => {
    const older = f.releases[0]!;
    // A copy of the run's shared install of the older release (installed() asserts that install exited 0).
    const { home } = await installed(f, { release: older.shell });
    // First from a bundle with one flipped package: the whole `verify` check refuses it, and nothing changes.
    const refused = await offline(tamperedPackage, home, 'exec "$HOME/.gentle-shell/bin/gentle-shell" upgrade --source "$1"');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /the offline bundle is not the signed release it claims: packages\/gentle-pi\/-\/gentle-pi-4\.1\.0\.tgz is not gentle-pi@4\.1\.0 as the signed lockfile records it; nothing was changed/,
    );
    expect(await fs.readdir(join(home, ".gentle-shell", "versions"))).toEqual([older.id]);
    // Inside the namespace nothing answers: asking the registry for `latest` would fail the upgrade.
    const r = await offline(
      bundle,
      home,
      ['"$HOME/.gentle-shell/bin/gentle-shell" upgrade --source "$1" || exit $?', 'exec "$HOME/.gentle-shell/bin/gentle-shell" --version'].join("\n"),
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `Installing Gentle Shell ${release.shell} with Pi ${release.pi} from the offline bundle (signature verified; it brings its own engine)...`,
    );
    expect(r.stdout).toContain(`Gentle Shell ${release.shell} with Pi ${release.pi} is now current (was ${older.id}).`);
    expect(r.stdout.trim().split("\n").slice(-2)).toEqual([`gentle-shell ${release.shell}`, `pi ${release.pi}`]);
    expect(await fs.readFile(join(home, ".gentle-shell", "runtime", "engram-3.5.2", ".gentle-shell-runtime"), "utf8")).toBeTruthy();
    expect(await fs.readdir(join(home, ".gentle-shell", "tmp")).catch(() => [])).toEqual([]);
  });
});
