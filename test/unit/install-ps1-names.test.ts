/**
 * One name for the release across the installers (issue 47, item 5):
 * install.ps1 takes `-Release` and GENTLE_SHELL_RELEASE, the binary's own
 * `--release` and knob, with the older `-Version` and GENTLE_SHELL_VERSION
 * kept as aliases; the docs name the new ones. The parameters' behaviour is
 * tested under PowerShell by windows/install-ps1.Tests.ps1; this reads the
 * script's text, so it holds on every machine.
 */
import { readFileSync } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { REPO } from "../support/doc-commands";

const text = (path: string) => readFileSync(join(REPO, path), "utf8").replace(/\r\n/g, "\n");
const script = text("installers/install.ps1");
const knobs = text("src/cli/knobs.ts");

describe("the release's name in install.ps1", () => {
  it("is -Release, with -Version as its alias, in the script's and both functions' parameters", () => {
    const declared = script.match(/\[Alias\('Version'\)\]\[string\]\$Release\b/g) ?? [];
    expect(declared).toHaveLength(3);
    expect(script).not.toMatch(/\[string\]\$Version\b/);
  });

  it("reads GENTLE_SHELL_RELEASE, the binary's own knob, before the older GENTLE_SHELL_VERSION", () => {
    expect(knobs).toContain('"GENTLE_SHELL_RELEASE"');
    const fresh = script.indexOf("$Environment['GENTLE_SHELL_RELEASE']");
    const older = script.indexOf("$Environment['GENTLE_SHELL_VERSION']");
    expect(fresh).toBeGreaterThan(0);
    expect(older).toBeGreaterThan(fresh);
    expect(script).toMatch(/\$names = [^\n]*'GENTLE_SHELL_RELEASE'/);
  });

  it("is what the docs name", () => {
    for (const page of ["docs/install.md", "docs/fleets-and-ci.md"]) {
      const doc = text(page);
      expect(doc, page).toContain("GENTLE_SHELL_RELEASE");
      expect(doc, page).not.toMatch(/`-Version 4|`GENTLE_SHELL_VERSION`,/);
    }
    expect(text("docs/install.md")).toContain("`-Release 4.1.0`");
  });
});
