import { describe, expect, it } from "vitest";
import { lockedPackages, packageFitsTarget, packagesForTargets, tarballPath } from "../../src/core/lockfile";

const integrity = (c: string) => `sha512-${c.repeat(86)}==`;
const lock = `lockfileVersion: '9.0'

settings:
  autoInstallPeers: true

importers:

  .:
    dependencies:
      gentle-pi:
        specifier: 4.1.0
        version: 4.1.0

packages:

  '@esbuild/linux-x64@0.21.5':
    resolution: {integrity: ${integrity("a")}}
    engines: {node: '>=12'}
    cpu: [x64]
    os: [linux]

  '@img/sharp-linuxmusl-arm64@0.33.5':
    resolution: {integrity: ${integrity("b")}}
    cpu: [arm64]
    os: [linux]
    libc: [musl]

  fsevents@2.3.3:
    resolution: {integrity: ${integrity("c")}}
    os: [darwin]

  not-windows@1.0.0:
    resolution: {integrity: ${integrity("d")}}
    os: ['!win32']

  gentle-pi@4.1.0:
    resolution: {integrity: ${integrity("e")}}
    peerDependencies:
      zod: ^3.25.0
    peerDependenciesMeta:
      zod:
        optional: true

snapshots:

  gentle-pi@4.1.0: {}
`;

describe("the release lockfile's packages", () => {
  const packages = lockedPackages(lock);

  it("reads each package's name, version, integrity and system fields, and nothing under snapshots", () => {
    expect(packages.map((p) => `${p.name}@${p.version}`)).toEqual([
      "@esbuild/linux-x64@0.21.5",
      "@img/sharp-linuxmusl-arm64@0.33.5",
      "fsevents@2.3.3",
      "not-windows@1.0.0",
      "gentle-pi@4.1.0",
    ]);
    expect(packages[0]).toEqual({ name: "@esbuild/linux-x64", version: "0.21.5", integrity: integrity("a"), os: ["linux"], cpu: ["x64"], libc: null });
    expect(packages[3]!.os).toEqual(["!win32"]);
    expect(packages[4]).toMatchObject({ os: null, cpu: null, libc: null });
  });

  it("a registry tarball lives at <name>/-/<name without scope>-<version>.tgz", () => {
    expect(tarballPath(packages[0]!)).toBe("@esbuild/linux-x64/-/linux-x64-0.21.5.tgz");
    expect(tarballPath(packages[4]!)).toBe("gentle-pi/-/gentle-pi-4.1.0.tgz");
  });

  it("keeps, per target, what npm's os/cpu/libc rules let it install (Linux takes glibc and musl)", () => {
    const names = (t: Parameters<typeof packageFitsTarget>[1]) => packages.filter((p) => packageFitsTarget(p, t)).map((p) => p.name);
    expect(names("linux-x64")).toEqual(["@esbuild/linux-x64", "not-windows", "gentle-pi"]);
    expect(names("linux-arm64")).toEqual(["@img/sharp-linuxmusl-arm64", "not-windows", "gentle-pi"]);
    expect(names("darwin-arm64")).toEqual(["fsevents", "not-windows", "gentle-pi"]);
    expect(names("win-x64")).toEqual(["gentle-pi"]);
    expect(packagesForTargets(packages, ["win-x64", "darwin-x64"]).map((p) => p.name)).toEqual(["fsevents", "not-windows", "gentle-pi"]);
  });

  it("refuses what cannot be verified offline: a tarball or git resolution, no integrity, another lockfile version", () => {
    expect(() => lockedPackages(lock.replace(`{integrity: ${integrity("c")}}`, "{tarball: https://example.invalid/x.tgz}"))).toThrow(
      "fsevents@2.3.3 in the release lockfile is not resolved from the registry with an integrity",
    );
    expect(() => lockedPackages(lock.replace(`    resolution: {integrity: ${integrity("e")}}\n`, ""))).toThrow(
      "gentle-pi@4.1.0 in the release lockfile has no registry integrity",
    );
    expect(() => lockedPackages(lock.replace("lockfileVersion: '9.0'", "lockfileVersion: '6.0'"))).toThrow("not a pnpm lockfile version 9");
    expect(() => lockedPackages(lock.replace("fsevents@2.3.3:", "'../evil@1.0.0':"))).toThrow("not a registry package name and version");
  });
});
