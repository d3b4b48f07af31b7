/**
 * The real Windows registry adapter for the PATH entry (issue 5), on the
 * Windows CI runner: our bin is appended to the HKCU user Path through
 * PowerShell, the value's type is kept, %VAR% entries stay unexpanded, and
 * removal gives back the exact raw value. Off Windows every test fails.
 */
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prefixLayout } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { windowsPowerShellRunner } from "../../src/io/powershell";
import { removePathEntry } from "../../src/path/apply";
import { windowsRegistry } from "../../src/path/windows-registry";
import { pathEntryStep } from "../../src/path/step";

function requireWindows(): void {
  if (process.platform !== "win32") throw new Error(`test/windows needs Windows (HKCU, PowerShell); this is ${process.platform}`);
}

const registry = process.platform === "win32" ? windowsRegistry(windowsPowerShellRunner(process.env)) : null;
let original: Awaited<ReturnType<NonNullable<typeof registry>["readUserPath"]>> = null;
let prefix = "";

beforeAll(async () => {
  requireWindows();
  original = await registry!.readUserPath();
  prefix = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "gss-path-")));
  // A %VAR% entry that must never be expanded by our read-modify-write.
  await registry!.writeUserPath({ value: `${original?.value ? original.value + ";" : ""}%GSS_NEVER_EXPANDED%\\bin`, type: "REG_EXPAND_SZ" });
});

afterAll(async () => {
  if (registry && original) await registry.writeUserPath(original);
  if (prefix) await fs.rm(prefix, { recursive: true, force: true });
});

describe("the HKCU user Path through the real adapter", () => {
  it("appends our bin once, keeps REG_EXPAND_SZ and %VAR%, and removal restores the raw value", async () => {
    requireWindows();
    const before = await registry!.readUserPath();
    const layout = prefixLayout({ home: process.env.USERPROFILE!, platform: "win32", pins: productionPins, windowsPrefix: prefix });
    const env = { ...process.env } as Record<string, string | undefined>;
    const first = await pathEntryStep(layout, env, { platform: "win32", registry: registry! });
    expect(first.status).toBe("applied");
    const after = await registry!.readUserPath();
    expect(after!.type).toBe("REG_EXPAND_SZ");
    expect(after!.value).toContain("%GSS_NEVER_EXPANDED%\\bin");
    expect(after!.value.toLowerCase()).toContain(join(prefix, "bin").toLowerCase());

    const second = await pathEntryStep(layout, env, { platform: "win32", registry: registry! });
    expect(second.status).toBe("already");
    expect((await registry!.readUserPath())!.value).toBe(after!.value);

    const removed = await removePathEntry(first.receipt!, { registry: registry! });
    expect(removed.status).toBe("removed");
    expect(await registry!.readUserPath()).toEqual(before);
  });
});
