/** The bundle's pure parts: SHA256SUMS, --target, and which installer binaries a bundle takes (src/install/offline/). */
import { afterAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { formatSums, parseSums, BUNDLE_SUMS } from "../../src/install/offline/format";
import { findInstallerBinaries } from "../../src/release/offline-bundle";
import { bundleTargets } from "../../src/cli/bundle";

const root = mkdtempSync(join(tmpdir(), "gss-bundle-parts-"));
afterAll(() => fs.rm(root, { recursive: true, force: true }));

describe("a bundle's parts", () => {
  it("SHA256SUMS reads back as written and refuses paths outside the bundle", () => {
    const sums = new Map([
      ["b/c.tgz", "a".repeat(64)],
      ["a.txt", "b".repeat(64)],
    ]);
    expect(formatSums(sums)).toBe(`${"b".repeat(64)}  a.txt\n${"a".repeat(64)}  b/c.tgz\n`);
    expect(parseSums(formatSums(sums))).toEqual(sums);
    expect(() => parseSums(`${"a".repeat(64)}  ../x\n`)).toThrow(/SHA256SUMS line 1/);
    expect(() => parseSums(`${"a".repeat(64)}  /etc/passwd\n`)).toThrow(/SHA256SUMS line 1/);
  });

  it("--target: repeatable or comma-separated, `all`, this machine's by default, anything else refused", () => {
    expect(bundleTargets([], "linux-x64")).toEqual(["linux-x64"]);
    expect(bundleTargets(["--target", "win-x64,linux-arm64", "--target=win-x64"], "linux-x64")).toEqual(["win-x64", "linux-arm64"]);
    expect(bundleTargets(["--target", "all"], "linux-x64")).toHaveLength(6);
    expect(() => bundleTargets(["--target", "linux-x86"], "linux-x64")).toThrow(/unknown --target "linux-x86"/);
  });

  it("takes the running single executable and the binaries beside it that agree with the SHA256SUMS there", async () => {
    const dir = join(root, "release-download");
    await fs.mkdir(dir);
    for (const name of ["gentle-shell-setup-linux-x64", "gentle-shell-setup-linux-arm64", "gentle-shell-setup-win-x64.exe"]) {
      await fs.writeFile(join(dir, name), `binary ${name}\n`);
    }
    const good = createHash("sha256").update("binary gentle-shell-setup-linux-arm64\n").digest("hex");
    await fs.writeFile(join(dir, BUNDLE_SUMS), `${good}  gentle-shell-setup-linux-arm64\n${"0".repeat(64)}  gentle-shell-setup-win-x64.exe\n`);
    const found = await findInstallerBinaries(["linux-x64", "linux-arm64", "win-x64", "darwin-arm64"], "linux-x64", {
      executable: join(dir, "gentle-shell-setup-linux-x64"),
      isSingleExecutable: true,
    });
    expect(found.binaries).toEqual({
      "linux-x64": join(dir, "gentle-shell-setup-linux-x64"),
      "linux-arm64": join(dir, "gentle-shell-setup-linux-arm64"),
    });
    expect(found.notes.join("\n")).toMatch(/gentle-shell-setup-win-x64\.exe does not match the SHA256SUMS beside it/);
    expect(found.notes.join("\n")).toMatch(/no gentle-shell-setup-darwin-arm64 at hand/);
    const script = await findInstallerBinaries(["linux-x64"], "linux-x64", { executable: process.execPath, isSingleExecutable: false });
    expect(script.binaries).toEqual({});
    expect(script.notes).toHaveLength(1);
  });
});
