/**
 * build/package-manifests.mjs (issue 42, part 2): the winget manifest set, the
 * Scoop manifest and the Homebrew formula of a release, made from its
 * SHA256SUMS. Each is checked against its format's official schema (vendored
 * in build/schemas/) and read back: every URL is the release's download of the
 * asset SHA256SUMS names, with that line's hash. The hashes are made up here
 * (sha256 of the asset's name), never a real release's. `ruby -c` and the
 * formula's test against a real binary are the release rehearsal's.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "js-yaml";
import { afterAll, describe, expect, it } from "vitest";
import {
  binaryName,
  HOMEBREW_FORMULA,
  INSTALL_COMMAND,
  packageManifests,
  parseSums,
  RELEASE_TARGETS,
  releaseOf,
  rubyString,
  SCOOP_MANIFEST,
  WINGET_MANIFEST_VERSION,
} from "../../build/package-manifests.mjs";
import { allComplaints, downloads, formulaTest, scoopComplaints, WINGET_FILES, wingetComplaints } from "../support/package-manifests";
import { REPO_ROOT } from "../support/paths";

const HOME = "Gentleman-Programming/gentle-shell-setup";
const VERSION = "4.1.0";
const LINE = "gentle-shell-setup 0.1.0 (pins: production)";
const fakeSha = (word: string) => createHash("sha256").update(word).digest("hex");
const sumsOf = (names: string[]) => names.map((name) => `${fakeSha(name)}  ${name}\n`).join("");
const ALL = RELEASE_TARGETS.map(binaryName);
const input = (over: Partial<{ version: string; home: string; sums: string; versionLine: string }> = {}) => ({
  version: VERSION,
  home: HOME,
  sums: sumsOf(ALL),
  versionLine: LINE,
  ...over,
});
const filesOf = (list: { name: string; text: string }[]) => new Map(list.map((f) => [f.name, f.text]));
const files = filesOf(packageManifests(input()));

describe("the manifests of a release", () => {
  it("are winget's three files, Scoop's manifest and the formula, each valid against its official schema", () => {
    expect([...files.keys()].sort()).toEqual([...Object.values(WINGET_FILES), SCOOP_MANIFEST, HOMEBREW_FORMULA].sort());
    expect(allComplaints(files)).toBe("");
    for (const name of Object.values(WINGET_FILES)) {
      expect(files.get(name)).toContain(`ManifestVersion: ${WINGET_MANIFEST_VERSION}\n`);
      expect(files.get(name)).toMatch(/^# yaml-language-server: \$schema=https:\/\/aka\.ms\/winget-manifest\.\w+\.1\.12\.0\.schema\.json\n/);
    }
  });

  it("the schemas refuse what winget and Scoop would refuse, so a passing check means something", () => {
    const installer = files.get(WINGET_FILES.installer)!;
    expect(wingetComplaints("installer", installer.replace("InstallerType: portable", "InstallerType: tarball"))).toMatch(/InstallerType/);
    expect(wingetComplaints("installer", installer.replace(/InstallerSha256: \w+/, "InstallerSha256: 1234"))).toMatch(/InstallerSha256/);
    expect(wingetComplaints("version", files.get(WINGET_FILES.version)!.replace(/^PackageIdentifier: .*$/m, "PackageIdentifier: nodot"))).not.toBe("");
    const scoop = JSON.parse(files.get(SCOOP_MANIFEST)!);
    expect(scoopComplaints(JSON.stringify({ ...scoop, architecture: { ...scoop.architecture, "64bit": { url: "x", hash: "nothex" } } }))).not.toBe("");
    expect(scoopComplaints(JSON.stringify({ ...scoop, post_instal: [] }))).not.toBe("");
  });

  it("every download is the release's asset for its platform, with SHA256SUMS's hash", () => {
    const expected: Record<string, string> = {
      "winget x64": "win-x64",
      "winget arm64": "win-arm64",
      "scoop 64bit": "win-x64",
      "scoop arm64": "win-arm64",
      "homebrew macos arm": "darwin-arm64",
      "homebrew macos intel": "darwin-x64",
      "homebrew linux arm": "linux-arm64",
      "homebrew linux intel": "linux-x64",
    };
    const found = downloads(files);
    expect(found.map((d) => d.by).sort()).toEqual(Object.keys(expected).sort());
    for (const d of found) {
      const name = binaryName(expected[d.by]!);
      expect(d, d.by).toEqual({ by: d.by, url: `https://github.com/${HOME}/releases/download/v${VERSION}/${name}`, sha256: fakeSha(name) });
    }
  });

  it("winget: a per-user portable whose alias is the command, and the install command in the notes it prints", () => {
    const installer = load(files.get(WINGET_FILES.installer)!) as Record<string, unknown>;
    expect(installer).toMatchObject({ InstallerType: "portable", Scope: "user", Commands: ["gentle-shell-setup"], PackageVersion: VERSION });
    const locale = load(files.get(WINGET_FILES.defaultLocale)!) as Record<string, string>;
    expect(locale.InstallationNotes).toContain(`\`${INSTALL_COMMAND}\``);
    expect(locale.Description).toContain(INSTALL_COMMAND);
    expect(locale.ReleaseNotesUrl).toBe(`https://github.com/${HOME}/releases/tag/v${VERSION}`);
  });

  it("Scoop: the file is the command, post_install runs the install, checkver and autoupdate follow GitHub's releases", () => {
    const scoop = JSON.parse(files.get(SCOOP_MANIFEST)!);
    expect(scoop.bin).toBe("gentle-shell-setup.exe");
    expect(scoop.architecture["64bit"].url).toMatch(/gentle-shell-setup-win-x64\.exe#\/gentle-shell-setup\.exe$/);
    expect(scoop.post_install[0]).toBe('& "$dir\\gentle-shell-setup.exe" install --yes');
    expect(scoop.post_install[1]).toMatch(/^if \(\$LASTEXITCODE -ne 0\) \{ warn /);
    expect(scoop.checkver).toEqual({ github: `https://github.com/${HOME}` });
    expect(scoop.autoupdate.architecture.arm64).toEqual({
      url: `https://github.com/${HOME}/releases/download/v$version/gentle-shell-setup-win-arm64.exe#/gentle-shell-setup.exe`,
      hash: { url: "$baseurl/SHA256SUMS" },
    });
  });

  it("Homebrew: the binary is installed as the command, its test expects the release binary's own --version line", () => {
    const formula = files.get(HOMEBREW_FORMULA)!;
    expect(formula).toMatch(/^class GentleShellSetup < Formula$/m);
    expect(formula).toContain(`  version "${VERSION}"\n`);
    expect(formula).toContain('    bin.install binaries.first => "gentle-shell-setup"\n');
    expect(formula).toContain(INSTALL_COMMAND);
    expect(formulaTest(formula)).toEqual({ command: "#{bin}/gentle-shell-setup --version", expected: LINE });
  });

  it("a Ruby string never interpolates: quotes, backslashes and #{ are escaped", () => {
    expect(rubyString('a "b" \\ #{c}')).toBe('"a \\"b\\" \\\\ \\#{c}"');
    const formula = packageManifests(input({ versionLine: 'gentle-shell-setup 1 "#{x}"' })).find((f) => f.name === HOMEBREW_FORMULA)!.text;
    expect(formulaTest(formula).expected).toBe('gentle-shell-setup 1 "#{x}"');
  });
});

describe("what the generator refuses, in one sentence", () => {
  it("a SHA256SUMS without one of the six targets names the missing binary", () => {
    const sums = sumsOf(ALL.filter((n) => n !== "gentle-shell-setup-darwin-arm64"));
    expect(() => packageManifests(input({ sums }))).toThrow(
      "SHA256SUMS has no line for gentle-shell-setup-darwin-arm64: the manifests need every target's binary",
    );
  });

  it("a line that is not <sha256>  <name>, a name listed twice, a bad version, home or version line", () => {
    expect(() => parseSums("abc  x\n")).toThrow('SHA256SUMS line 1 is not "<sha256>  <name>": "abc  x"');
    expect(() => parseSums(sumsOf(["a", "a"]))).toThrow("SHA256SUMS lists a twice");
    expect(() => releaseOf(input({ version: "v4.1.0" }))).toThrow('the release version must be <major.minor.patch>, not "v4.1.0"');
    expect(() => releaseOf(input({ home: "no-slash" }))).toThrow('the release home must be <owner>/<name>, not "no-slash"');
    expect(() => releaseOf(input({ versionLine: "" }))).toThrow("the version line must be the one line `gentle-shell-setup --version` prints");
  });

  it("reads sha256sum's binary mark and upper-case hashes, and keeps the hash lower-case", () => {
    const name = ALL[0]!;
    expect(parseSums(`${fakeSha(name).toUpperCase()} *${name}\r\n\n`)).toEqual(new Map([[name, fakeSha(name)]]));
  });
});

describe("build/write-package-manifests.mjs", () => {
  const script = join(REPO_ROOT, "build", "write-package-manifests.mjs");
  const dir = mkdtempSync(join(tmpdir(), "gss-package-manifests-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes the five files, byte for byte what the generator returns", () => {
    writeFileSync(join(dir, "SHA256SUMS"), sumsOf(ALL));
    const out = join(dir, "out");
    const args = ["--version", VERSION, "--home", HOME, "--sums", join(dir, "SHA256SUMS"), "--version-line", LINE, "--out", out];
    const r = spawnSync(process.execPath, [script, ...args], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual([...files.keys()].sort());
    for (const [name, text] of files) expect(readFileSync(join(out, name), "utf8")).toBe(text);
  });

  it("bad input is one sentence on stderr and exit 1", () => {
    const r = spawnSync(process.execPath, [script, "--version", VERSION, "--home", HOME, "--sums", join(dir, "none"), "--version-line", LINE, "--out", dir], {
      encoding: "utf8",
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`write-package-manifests: cannot read ${join(dir, "none")}\n`);
    const missing = spawnSync(process.execPath, [script, "--version", VERSION], { encoding: "utf8" });
    expect(missing.stderr).toBe("write-package-manifests: missing --home, --sums, --version-line, --out\n");
  });
});
