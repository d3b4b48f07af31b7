import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { afterEach, describe, expect, it } from "vitest";
import { prefixLayout, type Platform } from "../../src/core/layout";
import { activateVersion, currentEngine } from "../../src/install/activate";
import { productionPins } from "../../src/pins/production";
import { requires } from "../support/capabilities";

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

function layoutFor(platform: Platform) {
  const root = mkdtempSync(join(tmpdir(), "gss-current-engine-"));
  roots.push(root);
  return prefixLayout({ home: root, platform, pins: productionPins, windowsPrefix: join(root, "LocalAppData", "gentle-shell") });
}

describe("the active version's engine (issue 24, defect 3: update's all forms on Windows)", () => {
  it.for(["win32", "linux"] as const)("%s: versions/<id>/.gentle-shell/engine.cjs, from the id current names", async (platform, ctx) => {
    // A linux layout's current is a relative link, made on this machine's real folder.
    if (platform === "linux") requires(ctx, "symlinks");
    const layout = layoutFor(platform);
    await fs.mkdir(join(layout.versions, "4.1.0-1.6.0"), { recursive: true });
    await activateVersion(layout, "4.1.0-1.6.0");
    // On Windows current is a pointer file: nothing lies under it.
    expect((await fs.lstat(layout.current)).isFile()).toBe(platform === "win32");
    expect(await currentEngine(layout)).toBe(join(layout.versions, "4.1.0-1.6.0", ".gentle-shell", "engine.cjs"));
  });

  it("no active version: one sentence that says what to do", async () => {
    await expect(currentEngine(layoutFor("win32"))).rejects.toThrow(/^no Gentle Shell version is active; run the Gentle Shell installer again$/);
  });
});
