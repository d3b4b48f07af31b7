import { describe, expect, it } from "vitest";
import { distributionAsset, distributionFiles, readDistribution, sha256Hex } from "../../src/core/release-project";
import { compareVersions, isExactVersion } from "../../src/core/versions";

const lock = "lockfileVersion: '9.0'\n\nimporters:\n  .: {}\n";
const gen = { node: "24.21.0", pnpm: "11.1.1" };

describe("distributionFiles", () => {
  it("pins gentle-pi and Pi exactly in package.json", () => {
    const files = distributionFiles({ shell: "4.1.0", pi: "1.6.0" });
    const pkg = JSON.parse(files["package.json"]);
    expect(pkg.dependencies).toEqual({ "@earendil-works/pi-coding-agent": "1.6.0", "gentle-pi": "4.1.0" });
    expect(pkg.private).toBe(true);
  });

  it("allows only gentle-pi's builds and makes other build scripts non-fatal", () => {
    const files = distributionFiles({ shell: "4.1.0", pi: "1.6.0" });
    expect(files["pnpm-workspace.yaml"]).toBe("allowBuilds:\n  gentle-pi: true\nstrictDepBuilds: false\n");
  });

  it("sets no supportedArchitectures and no minimum release age", () => {
    const files = distributionFiles({ shell: "4.1.0", pi: "1.6.0" });
    const all = files["package.json"] + files["pnpm-workspace.yaml"];
    expect(all).not.toMatch(/supportedArchitectures|minimumReleaseAge|minimum-release-age/);
  });

  it.each(["^4.1.0", "latest", "v4.1.0", "4.1.0+build.1", "4.1", "", "4.1.0 || 5.0.0", "04.1.0"])("refuses %j before pnpm runs", (bad) => {
    expect(() => distributionFiles({ shell: bad, pi: "1.6.0" })).toThrow(/exact version/);
    expect(() => distributionFiles({ shell: "4.1.0", pi: bad })).toThrow(/exact version/);
  });

  it("accepts pre-releases as exact versions", () => {
    expect(isExactVersion("4.2.0-rc.1")).toBe(true);
    expect(compareVersions("4.2.0-rc.1", "4.2.0")).toBe(-1);
    expect(compareVersions("4.10.0", "4.9.9")).toBe(1);
    expect(compareVersions("1.6.0", "1.6.0")).toBe(0);
  });
});

describe("distributionAsset", () => {
  it("gives the same bytes for the same inputs, in a fixed order", () => {
    const a = distributionAsset({ shell: "4.1.0", pi: "1.6.0" }, lock, gen);
    const b = distributionAsset({ pi: "1.6.0", shell: "4.1.0" }, lock, { pnpm: "11.1.1", node: "24.21.0" });
    expect(a).toBe(b);
    expect(Object.keys(JSON.parse(a))).toEqual(["schema", "shell", "pi", "id", "generatedWith", "files", "lockfile"]);
    expect(JSON.parse(a).lockfile).toEqual({ name: "gentle-shell-distribution-lock.yaml", sha256: sha256Hex(lock) });
  });
});

describe("readDistribution", () => {
  const json = distributionAsset({ shell: "4.1.0", pi: "1.6.0" }, lock, gen);

  it("returns the manifest and lockfile of a sound release", () => {
    const d = readDistribution(json, lock);
    expect(d.manifest).toEqual({ shell: "4.1.0", pi: "1.6.0", id: "4.1.0-1.6.0" });
    expect(d.lockfile).toBe(lock);
  });

  it("refuses a lockfile that does not match the recorded sha256", () => {
    expect(() => readDistribution(json, lock + "# tampered\n")).toThrow(/does not match the sha256/);
  });

  it("refuses files other than the ones installVersion writes", () => {
    const data = JSON.parse(json);
    data.files["pnpm-workspace.yaml"] = "allowBuilds:\n  gentle-pi: true\n  koffi: true\nstrictDepBuilds: false\n";
    expect(() => readDistribution(JSON.stringify(data), lock)).toThrow(/exactly the files/);
    const extra = JSON.parse(json);
    extra.files[".npmrc"] = "registry=http://127.0.0.1/\n";
    expect(() => readDistribution(JSON.stringify(extra), lock)).toThrow(/exactly the files/);
  });

  it.each([
    ["shell", "latest"],
    ["shell", "v4.1.0"],
    ["pi", "^1.6.0"],
    ["pi", "1.6.0+meta"],
  ])("refuses %s %j", (key, value) => {
    const data = JSON.parse(json);
    data[key] = value;
    expect(() => readDistribution(JSON.stringify(data), lock)).toThrow(/exact version/);
  });

  it("does not compare generatedWith", () => {
    const data = JSON.parse(json);
    data.generatedWith = { node: "22.0.0", pnpm: "10.0.0" };
    expect(readDistribution(JSON.stringify(data), lock).manifest.id).toBe("4.1.0-1.6.0");
  });

  it("refuses an unknown schema and a wrong id", () => {
    expect(() => readDistribution(JSON.stringify({ ...JSON.parse(json), schema: 2 }), lock)).toThrow(/schema/);
    expect(() => readDistribution(JSON.stringify({ ...JSON.parse(json), id: "4.1.0-1.5.0" }), lock)).toThrow(/id/);
    expect(() => readDistribution("not json", lock)).toThrow(/not valid JSON/);
  });

  it("says a damaged file is damaged, naming it and where it came from, never by the first field it lacks", () => {
    const where = "the mirror https://m.test/gs";
    expect(() => readDistribution(json.slice(0, 40), lock, where)).toThrow(
      "gentle-shell-distribution.json from the mirror https://m.test/gs is not valid JSON: the file is damaged; get it again",
    );
    const lost = JSON.parse(json);
    delete lost.pi;
    expect(() => readDistribution(JSON.stringify(lost), lock, "/media/assets")).toThrow(
      /^gentle-shell-distribution\.json from \/media\/assets is not a valid Gentle Shell distribution: the release's Pi version must be an exact version .*got undefined$/,
    );
    expect(() => readDistribution(json, lock + "#", "/media/assets")).toThrow(
      /^gentle-shell-distribution-lock\.yaml from \/media\/assets for 4\.1\.0-1\.6\.0 does not match/,
    );
  });
});
