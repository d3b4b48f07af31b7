/**
 * The release rehearsal (issue 27; `npm run release:rehearse`): a release cut
 * the way .github/workflows/release.yml cuts one, served the way GitHub
 * serves it, and met the way a user meets it, through the official source
 * path and no --source at all.
 *
 * Inside a network namespace of its own (./support/netns.ts), github.com,
 * GitHub's release-asset hosts and nodejs.org resolve to a local HTTPS server
 * (./support/fake-github.ts) whose certificate comes from a test CA, the only
 * authority the namespace's system store holds; the registry is one of the
 * rehearsal's own, reached through the namespace's one link. The binary is
 * the fixture build: fixture pins and the fixture release key (throwaway;
 * production pins are untouched). The workflow's steps run in order:
 * release build, release verify, the engine and binaries, SHA256SUMS,
 * release sign, release check, the package-manager manifests, upload as a
 * draft, publish. This machine builds its own target only: the other five
 * binaries are stand-in bytes, so that SHA256SUMS, the signed manifest and
 * the package-manager manifests (issue 42) have every target a release has.
 */
import { createHash } from "node:crypto";
import { chmod, copyFile, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "pathe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { binaryName, HOMEBREW_FORMULA, RELEASE_TARGETS } from "../../build/package-manifests.mjs";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK } from "../../src/core/release-project";
import { hostTarget } from "../../src/core/machine";
import { ENGINE_ASSET, RELEASE_MANIFEST, RELEASE_SIGNATURE } from "../../src/core/release-manifest";
import { RELEASE_HOME } from "../../src/core/source";
import { fixtures } from "../support/context";
import { type FakeGitHub, GITHUB_NAMES, startFakeGitHub } from "../support/fake-github";
import type { FixtureRelease } from "../support/fixtures";
import { homeEnv } from "../support/fixtures";
import { packGentlePi } from "../support/gentle-pi";
import { makeNetns, type Netns } from "../support/netns";
import { allComplaints, downloads, formulaTest } from "../support/package-manifests";
import { registryLine, writeNpmrc } from "../support/npmrc";
import { REPO_ROOT } from "../support/paths";
import { runCommand, runChecked } from "../support/proc";
import { type Registry, startRegistry } from "../support/registry";
import { FIXTURE_RELEASE_KEY } from "../support/release-key";
import { scratchDir } from "../support/scratch";
import { makeTestCa } from "../support/test-ca";

const f = fixtures();
const first = f.releases[0]!;
const second = f.releases[f.releases.length - 1]!;
const ONE_LINER = `https://github.com/${RELEASE_HOME}/releases/latest/download/install.sh`;
const BINARY = `gentle-shell-setup-${hostTarget(process.platform, process.arch)}`;
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

let work: string;
let ns: Netns;
let github: FakeGitHub;
let registry: Registry;
let forwarded: { url: string; close(): Promise<void> };
let maintainer: string;
let keyFile: string;
/** The user's home, on the machine inside the namespace. */
let home: string;

/** What runs in the namespace gets nothing of this machine's environment: no CA settings, no proxy. */
const userEnv = () => ({ HOME: home, PATH: "/usr/local/bin:/usr/bin:/bin", SHELL: "/bin/bash", LANG: "C.UTF-8" });
const inside = (script: string) => ns.exec("sh", ["-c", script], { env: userEnv(), cwd: home });
const launcher = () => join(home, ".gentle-shell", "bin", "gentle-shell");

/** What the release job's package-manifests step wrote for each release, by its version. */
const manifestDirs = new Map<string, string>();

/** The release workflow's steps for `release`, in order, then its upload as a draft. */
async function cutRelease(release: FixtureRelease): Promise<string> {
  const dir = join(work, `v${release.shell}`);
  const run = (args: string[]) => runChecked(f.binary!, args, { env: homeEnv(maintainer), cwd: maintainer });
  // The distribution job, then the verify job: install in a temporary prefix, the launcher must report the pair.
  await run(["release", "build", "--shell", release.shell, "--pi", release.pi, "--out", dir, "--source", f.mirrorUrl]);
  await run(["release", "verify", "--assets", dir, "--source", f.mirrorUrl]);
  // The binaries' job: the engine every release publishes (the script the binary embeds), the binary, the installers.
  await copyFile(join(f.runDir, `engine-${release.shell}.cjs`), join(dir, ENGINE_ASSET));
  await copyFile(f.binary!, join(dir, BINARY));
  for (const name of ["install.sh", "install.ps1"]) await copyFile(join(REPO_ROOT, "installers", name), join(dir, name));
  const binaries = RELEASE_TARGETS.map(binaryName).sort();
  for (const name of binaries.filter((n) => n !== BINARY)) await writeFile(join(dir, name), `stand-in for ${name} of v${release.shell}\n`);
  const lines = await Promise.all(binaries.map(async (name) => `${sha256(await readFile(join(dir, name)))}  ${name}\n`));
  await writeFile(join(dir, "SHA256SUMS"), lines.join(""));
  // Last: the signed manifest over exactly these bytes, checked as every installer will; then the draft.
  await run(["release", "sign", "--assets", dir, "--key", keyFile, "--shell", release.shell]);
  await run(["release", "check", "--assets", dir]);
  // The package-manager manifests, from SHA256SUMS and the binary's own --version line, beside the release folder.
  const manifests = join(work, `package-manifests-v${release.shell}`);
  const versionLine = (await run(["--version"])).stdout.trim();
  const generator = join(REPO_ROOT, "build", "write-package-manifests.mjs");
  const options = { "--version": release.shell, "--home": RELEASE_HOME, "--sums": join(dir, "SHA256SUMS"), "--version-line": versionLine, "--out": manifests };
  await runChecked(process.execPath, [generator, ...Object.entries(options).flat()]);
  manifestDirs.set(release.shell, manifests);
  github.addRelease(`v${release.shell}`, dir);
  return dir;
}

beforeAll(async () => {
  work = scratchDir("gss-rehearsal-");
  const ca = makeTestCa(
    "gentle-shell-setup rehearsal CA",
    GITHUB_NAMES.map((name) => `DNS:${name}`),
  );
  ns = await makeNetns({ names: GITHUB_NAMES, caPem: await readFile(ca.caFile, "utf8") });
  github = await startFakeGitHub({ home: RELEASE_HOME, key: ca.key, cert: ca.cert, listen: ns.hostIp, mirrorRoot: f.mirrorRoot });
  // The rehearsal's own registry: gentle-pi's first release only, until the second is published.
  registry = await startRegistry({ gentlePiVersions: [first.shell] });
  forwarded = await ns.forward(new URL(registry.url));
  maintainer = join(work, "maintainer");
  await writeNpmrc(maintainer, [registryLine(registry.url)]);
  keyFile = join(work, "release-key.pem");
  await writeFile(keyFile, FIXTURE_RELEASE_KEY.privateKeyPem, { mode: 0o600 });
  home = join(work, "user home");
  await writeNpmrc(home, [registryLine(forwarded.url)]);
}, 900_000);

afterAll(async () => {
  await github?.close();
  await forwarded?.close();
  await registry?.stop();
  await ns?.close();
});

describe("the release rehearsal", () => {
  it("a release uploaded as a draft is served to no one: not the one-liner, not the binary", async () => {
    await cutRelease(first);
    const r = await inside(`curl -fsS -o /dev/null -w '%{http_code}' ${ONE_LINER}; echo " $?"`);
    expect(r.stdout.trim()).toBe("404 22");
    const asked = await inside(
      `curl -fsS -o /dev/null -w '%{http_code}' https://github.com/${RELEASE_HOME}/releases/download/v${first.shell}/${RELEASE_MANIFEST}`,
    );
    expect(asked.stdout.trim()).toBe("404");
  });

  it("published, curl … | sh installs it from GitHub with nothing else given, every asset from the release home", async () => {
    github.publish(`v${first.shell}`);
    const before = github.requests.length;
    const r = await inside(`curl -fsSL ${ONE_LINER} | sh -s -- --yes`);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("Gentle Shell is installed");
    const version = await ns.exec(launcher(), ["--version"], { env: userEnv(), cwd: home });
    expect(version.stdout).toBe(`gentle-shell ${first.shell}\npi ${first.pi}\n`);
    const asked = github.requests.slice(before);
    const release = (name: string) => `/${RELEASE_HOME}/releases/download/v${first.shell}/${name}`;
    const fromHome = asked.filter((q) => q.host === "github.com" && q.path.startsWith(`/${RELEASE_HOME}/`)).map((q) => q.path);
    // The one-liner: install.sh, SHA256SUMS and the binary through latest/download.
    for (const name of ["install.sh", "SHA256SUMS", BINARY]) expect(fromHome).toContain(`/${RELEASE_HOME}/releases/latest/download/${name}`);
    // The binary's official source: the signed manifest and its signature, then the distribution, from the release's own tag.
    for (const name of [RELEASE_MANIFEST, RELEASE_SIGNATURE, DISTRIBUTION_JSON, DISTRIBUTION_LOCK]) expect(fromHome).toContain(release(name));
    expect(fromHome.indexOf(release(RELEASE_MANIFEST))).toBeLessThan(fromHome.indexOf(release(DISTRIBUTION_JSON)));
    // Node from its own download host; every request the binary made says who it is.
    expect(asked.some((q) => q.host === "nodejs.org" && q.status === 200)).toBe(true);
    const binary = asked.filter((q) => !q.userAgent?.startsWith("curl/"));
    expect(binary.length).toBeGreaterThan(0);
    for (const q of binary) expect(q.userAgent, `${q.host}${q.path}`).toMatch(/^gentle-shell(-setup)?\/\S+ node\/24\.21\.0 linux-x64$/);
  });

  it("its package-manager manifests are valid, and every URL in them serves that asset of the release with SHA256SUMS's hash", async () => {
    const dir = manifestDirs.get(first.shell)!;
    const files = new Map<string, string>();
    for (const name of await readdir(dir)) files.set(name, await readFile(join(dir, name), "utf8"));
    expect(allComplaints(files)).toBe("");
    const sums = new Map(
      (await readFile(join(work, `v${first.shell}`, "SHA256SUMS"), "utf8"))
        .trim()
        .split("\n")
        .map((line) => line.split("  ").reverse() as [string, string]),
    );
    const found = downloads(files);
    expect(found).toHaveLength(8);
    const release = `https://github.com/${RELEASE_HOME}/releases/download/v${first.shell}/`;
    for (const d of found) {
      expect(d.url.startsWith(release), `${d.by}: ${d.url}`).toBe(true);
      const name = d.url.slice(release.length);
      expect(d.sha256, `${d.by}: ${name}`).toBe(sums.get(name));
      // Fetched the way a package manager fetches it, from the published release.
      const served = await inside(`curl -fsSL '${d.url}' | sha256sum`);
      expect(served.stdout.split(" ")[0], `${d.by}: ${d.url}`).toBe(d.sha256);
    }
    // The formula: Ruby's syntax check, then its test block's command on the binary installed as bin.install would.
    const formula = join(dir, HOMEBREW_FORMULA);
    const syntax = await runCommand("ruby", ["-c", formula]);
    expect(syntax.stdout + syntax.stderr).toBe("Syntax OK\n");
    const { command, expected } = formulaTest(files.get(HOMEBREW_FORMULA)!);
    const bin = join(work, "brew-bin");
    await mkdir(bin, { recursive: true });
    await copyFile(f.binary!, join(bin, "gentle-shell-setup"));
    await chmod(join(bin, "gentle-shell-setup"), 0o755);
    const ran = await inside(command.replaceAll("#{bin}", `'${bin}'`));
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout.replace(/\n$/, "")).toBe(expected);
  });

  it("a second release, cut and published, is what gentle-shell upgrade moves to; --rollback goes back", async () => {
    const packed = await packGentlePi(second.shell, join(work, "packed"));
    await registry.publish(packed.file);
    await cutRelease(second);
    github.publish(`v${second.shell}`);
    const up = await ns.exec(launcher(), ["upgrade"], { env: userEnv(), cwd: home });
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(up.stdout).toContain(`Gentle Shell ${second.shell} with Pi ${second.pi} is now current`);
    const now = await ns.exec(launcher(), ["--version"], { env: userEnv(), cwd: home });
    expect(now.stdout).toBe(`gentle-shell ${second.shell}\npi ${second.pi}\n`);
    const back = await ns.exec(launcher(), ["upgrade", "--rollback"], { env: userEnv(), cwd: home });
    expect(back.code, back.stdout + back.stderr).toBe(0);
    const then = await ns.exec(launcher(), ["--version"], { env: userEnv(), cwd: home });
    expect(then.stdout).toBe(`gentle-shell ${first.shell}\npi ${first.pi}\n`);
    // The upgrade read the second release from its own tag in the release home.
    expect(github.requests.some((q) => q.path === `/${RELEASE_HOME}/releases/download/v${second.shell}/${RELEASE_MANIFEST}`)).toBe(true);
  });
});
