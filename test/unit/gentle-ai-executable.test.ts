import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { afterEach, describe, expect, it } from "vitest";
import { prefixLayout, type Platform } from "../../src/core/layout";
import type { PrivateInstall } from "../../src/installed/private-install";
import { gentleAiCandidates, gentleAiExecutable } from "../../src/commands/setup";
import { productionPins } from "../../src/pins/production";

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

async function gentlePi(platform: Platform, files: string[], bin?: string) {
  const root = mkdtempSync(join(tmpdir(), "gss-gentle-ai-"));
  roots.push(root);
  const gentlePiRoot = join(root, "gentle-pi");
  await fs.mkdir(join(gentlePiRoot, "bin"), { recursive: true });
  await fs.writeFile(join(gentlePiRoot, "package.json"), JSON.stringify(bin ? { bin: { "gentle-ai": bin } } : {}));
  for (const f of files) await fs.writeFile(join(gentlePiRoot, f), "");
  const layout = prefixLayout({ home: root, platform, pins: productionPins, windowsPrefix: join(root, "gentle-shell") });
  return { install: { layout, gentlePiRoot, shell: "4.1.0" } as unknown as PrivateInstall, gentlePiRoot };
}

describe("the gentle-ai executable setup starts (issue 24, defect 9)", () => {
  it("Windows looks for the bare bin entry with .exe, which is what libuv can start; POSIX takes it as it is", () => {
    expect(gentleAiCandidates("bin/gentle-ai", "win32")).toEqual(["bin/gentle-ai.exe"]);
    expect(gentleAiCandidates("bin/gentle-ai.EXE", "win32")).toEqual(["bin/gentle-ai.EXE"]);
    expect(gentleAiCandidates("bin/gentle-ai", "linux")).toEqual(["bin/gentle-ai"]);
  });

  it("Windows: gentle-ai.exe from the default entry and from a bare package.json entry", async () => {
    for (const bin of [undefined, "bin/gentle-ai"]) {
      const { install, gentlePiRoot } = await gentlePi("win32", ["bin/gentle-ai", "bin/gentle-ai.exe"], bin);
      expect(await gentleAiExecutable(install)).toBe(join(gentlePiRoot, "bin/gentle-ai.exe"));
    }
  });

  it("Windows: a build that left only the bare name is reported, naming what was looked for", async () => {
    const { install } = await gentlePi("win32", ["bin/gentle-ai"]);
    await expect(gentleAiExecutable(install)).rejects.toThrow(
      "gentle-pi 4.1.0 has no gentle-ai executable (bin/gentle-ai.exe); its build did not run. Run the Gentle Shell installer again.",
    );
  });

  it("POSIX: the entry itself", async () => {
    const { install, gentlePiRoot } = await gentlePi("linux", ["bin/gentle-ai"]);
    expect(await gentleAiExecutable(install)).toBe(join(gentlePiRoot, "bin/gentle-ai"));
  });
});
