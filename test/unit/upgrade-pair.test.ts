import { describe, expect, it } from "vitest";
import { distributionFiles, type Distribution } from "../../src/core/release-project";
import { keptPiWarning, offlineRefusal, pairProject, upgradePair } from "../../src/core/upgrade-pair";
import { prefixLayout } from "../../src/core/layout";
import { installVersion, pnpmFailure } from "../../src/install/version-install";
import { productionPins } from "../../src/pins/production";

const release = (shell: string, pi: string): Distribution => ({
  manifest: { shell, pi, id: `${shell}-${pi}` },
  files: distributionFiles({ shell, pi }),
  lockfile: "lockfileVersion: '9.0'\n",
});

describe("upgradePair", () => {
  it("installs the release's exact pair with its lockfile when the active Pi is older or the same", () => {
    expect(upgradePair("1.5.0", { shell: "4.1.0", pi: "1.6.0" })).toEqual({
      shell: "4.1.0",
      pi: "1.6.0",
      id: "4.1.0-1.6.0",
      lockfile: "release",
      releasePi: "1.6.0",
    });
    expect(upgradePair("1.6.0", { shell: "4.1.0", pi: "1.6.0" })).toMatchObject({ pi: "1.6.0", lockfile: "release" });
    // A pre-release sorts before its release.
    expect(upgradePair("1.6.0-rc.1", { shell: "4.1.0", pi: "1.6.0" })).toMatchObject({ pi: "1.6.0", lockfile: "release" });
  });

  it("keeps a newer active Pi and installs the release's gentle-pi with it, without a lockfile", () => {
    expect(upgradePair("1.6.0", { shell: "4.1.0", pi: "1.5.0" })).toEqual({
      shell: "4.1.0",
      pi: "1.6.0",
      id: "4.1.0-1.6.0",
      lockfile: "none",
      releasePi: "1.5.0",
    });
    expect(upgradePair("1.10.0", { shell: "4.1.0", pi: "1.9.0" })).toMatchObject({ pi: "1.10.0", lockfile: "none" });
    expect(upgradePair("1.6.1-rc.1", { shell: "4.1.0", pi: "1.6.0" })).toMatchObject({ id: "4.1.0-1.6.1-rc.1", lockfile: "none" });
  });

  it("refuses an active Pi that is not an exact version", () => {
    expect(() => upgradePair("^1.6.0", { shell: "4.1.0", pi: "1.5.0" })).toThrow(/active Pi version must be an exact version/);
  });
});

describe("pairProject", () => {
  it("is the release's verified distribution, lockfile and all, for its exact pair", () => {
    const d = release("4.1.0", "1.6.0");
    expect(pairProject(upgradePair("1.6.0", d.manifest), d)).toBe(d);
  });

  it("never carries the release's lockfile for another Pi: the kept Pi's exact files, no lockfile", () => {
    const d = release("4.1.0", "1.5.0");
    const project = pairProject(upgradePair("1.6.0", d.manifest), d);
    expect(project).toEqual({
      manifest: { shell: "4.1.0", pi: "1.6.0", id: "4.1.0-1.6.0" },
      files: distributionFiles({ shell: "4.1.0", pi: "1.6.0" }),
      lockfile: null,
    });
    expect(JSON.parse(project.files["package.json"]).dependencies).toEqual({ "@earendil-works/pi-coding-agent": "1.6.0", "gentle-pi": "4.1.0" });
  });

  it("refuses a pair chosen for another release", () => {
    expect(() => pairProject(upgradePair("1.6.0", { shell: "4.1.0", pi: "1.5.0" }), release("4.2.0", "1.5.0"))).toThrow(
      /was not chosen for the release 4\.2\.0-1\.5\.0/,
    );
  });
});

describe("the sentences", () => {
  it("warns in one line that Shell keeps the Pi and installs without the release's lockfile", () => {
    const line = keptPiWarning(upgradePair("1.6.0", { shell: "4.1.0", pi: "1.5.0" }));
    expect(line).toBe(
      "Warning: Shell keeps Pi 1.6.0 (newer than the release's Pi 1.5.0) and installs gentle-pi 4.1.0 without the release's lockfile; pnpm resolves that pair.",
    );
    expect(line).not.toContain("\n");
  });

  it("an offline bundle installs only its exact pair: a kept Pi is refused with one sentence", () => {
    expect(offlineRefusal(upgradePair("1.5.0", { shell: "4.1.0", pi: "1.6.0" }))).toBeNull();
    const refusal = offlineRefusal(upgradePair("1.6.0", { shell: "4.1.0", pi: "1.5.0" }));
    expect(refusal).toMatch(
      /^the offline bundle has Gentle Shell 4\.1\.0 with Pi 1\.5\.0 only, and Shell keeps the newer active Pi 1\.6\.0,.*; nothing was changed$/,
    );
    expect(refusal).not.toContain("\n");
  });

  it("pnpmFailure names pnpm's error code line, else its last line, on one line", () => {
    const stdout =
      "Progress: resolved 3\n ERR_PNPM_NO_MATCHING_VERSION  No matching version found for @earendil-works/pi-coding-agent@9.9.9\n\nThis error happened while installing\n";
    expect(pnpmFailure({ stdout, stderr: "", code: 1 })).toBe(
      "ERR_PNPM_NO_MATCHING_VERSION No matching version found for @earendil-works/pi-coding-agent@9.9.9",
    );
    // pnpm 11 prints the code in brackets.
    expect(pnpmFailure({ stdout: "[ERR_PNPM_FETCH_404]  GET failed\n", stderr: "", code: 1 })).toBe("ERR_PNPM_FETCH_404 GET failed");
    expect(pnpmFailure({ stdout: "a\nlast words\n", stderr: "", code: 1 })).toBe("last words");
    expect(pnpmFailure({ stdout: "", stderr: "", code: 7 })).toBe("pnpm exited with code 7");
  });
});

describe("installVersion without a lockfile", () => {
  // A home that does not exist: each refusal comes before anything is created.
  const layout = prefixLayout({ home: "/nonexistent/gss-upgrade-pair", platform: "linux", pins: productionPins });
  const kept = pairProject(upgradePair("1.6.0", { shell: "4.1.0", pi: "1.5.0" }), release("4.1.0", "1.5.0"));

  it("refuses files other than the exact pins of the pair it names", async () => {
    const loose = { ...kept, files: { ...kept.files, "package.json": kept.files["package.json"].replace('"1.6.0"', '"^1.6.0"') } };
    await expect(installVersion({ layout, distribution: loose, env: {}, engine: "" })).rejects.toThrow(
      "4.1.0-1.6.0 without a lockfile must be exactly the files of gentle-pi 4.1.0 with Pi 1.6.0",
    );
    const renamed = { ...kept, manifest: { ...kept.manifest, id: "4.1.0-1.5.0" } };
    await expect(installVersion({ layout, distribution: renamed, env: {}, engine: "" })).rejects.toThrow(/without a lockfile must be exactly/);
  });

  it("is never installed offline", async () => {
    await expect(installVersion({ layout, distribution: kept, env: {}, engine: "", offline: { registry: "http://127.0.0.1:9/" } })).rejects.toThrow(
      "4.1.0-1.6.0 has no lockfile, so it cannot be installed offline",
    );
  });
});
