/**
 * Upgrade step 7 (spec: "gentle-shell upgrade in a bundled install"): once
 * current has switched, a prune that fails prints a warning and the upgrade
 * still succeeds. The new version's module is a stand-in handed over as the
 * one started beside pnpm; its launcher is a real sh script that reports the
 * exact pair; pruneVersions is made to fail, everything else is real.
 */
import { mkdtempSync, promises as fs, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { afterEach, describe, expect, it, vi } from "vitest";
import { prefixLayout } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { ENGINE_PATH } from "../../src/install/engine-start";
import type { VersionModule } from "../../src/installed/module-session";
import { requires } from "../support/capabilities";

const prune = vi.hoisted(() => ({ fails: true, calls: 0 }));
vi.mock("../../src/install/activate", async (original) => {
  const real = await original<typeof import("../../src/install/activate")>();
  return {
    ...real,
    pruneVersions: async (...args: Parameters<typeof real.pruneVersions>) => {
      prune.calls++;
      if (prune.fails) throw new Error("EBUSY: versions/0.9.0 is in use");
      return real.pruneVersions(...args);
    },
  };
});

const { verifyAndSwitch } = await import("../../src/installed/version-switch");
const { readCurrent } = await import("../../src/install/activate");

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

async function setup() {
  const root = mkdtempSync(join(tmpdir(), "gss-switch-prune-"));
  roots.push(root);
  const layout = prefixLayout({ home: root, platform: "linux", pins: productionPins });
  const id = "1.1.0";
  await fs.mkdir(join(layout.versions, id, ENGINE_PATH, ".."), { recursive: true });
  await fs.writeFile(join(layout.versions, id, ENGINE_PATH), '"use strict";\n');
  await fs.mkdir(join(layout.versions, "1.0.0"), { recursive: true });
  await fs.symlink(join("versions", "1.0.0"), layout.current);
  const closed = { count: 0 };
  const module: VersionModule = {
    engineVersion: "1.1.0",
    node: process.execPath,
    launcher: { name: "gentle-shell", script: "#!/bin/sh\necho 'gentle-shell 1.1.0'\necho 'pi 1.6.0'\n" },
    answersPi: false,
    engram: async () => undefined,
    piVersion: async () => null,
    ensureLauncher: async () => undefined,
    close: async () => {
      closed.count++;
    },
  };
  return { layout, id, module, closed };
}

describe("verifyAndSwitch step 7", () => {
  it("warns when pruning fails, and the upgrade still succeeds with current on the new version", async (ctx) => {
    // Its launcher stand-in is an sh script, and current is a symbolic link.
    requires(ctx, "posix-shell", "symlinks");
    const { layout, id, module, closed } = await setup();
    prune.fails = true;
    prune.calls = 0;
    const lines: string[] = [];
    await expect(
      verifyAndSwitch({
        layout,
        env: { PATH: "/usr/bin:/bin" },
        npmrc: join(layout.prefix, "npmrc"),
        sourceArg: undefined,
        id,
        shell: "1.1.0",
        pi: "1.6.0",
        previous: "1.0.0",
        ours: true,
        label: "Gentle Shell 1.1.0",
        early: { start: () => undefined, stop: async () => undefined, opened: async () => module },
        out: (line) => lines.push(line),
      }),
    ).resolves.toBeUndefined();
    expect(prune.calls).toBe(1);
    expect(lines).toContain("Warning: older versions were not pruned (EBUSY: versions/0.9.0 is in use).");
    expect(await readCurrent(layout)).toBe(id);
    // The new version's folder stays: only a failure before the switch removes it.
    expect(readFileSync(join(layout.versions, id, ENGINE_PATH), "utf8")).toContain("use strict");
    expect(closed.count).toBe(1);
  });
});
