/**
 * An install and an upgrade while a scanner holds what they just wrote
 * (issue 38, Survive antivirus locks on Windows): the publish of a runtime
 * (publishByRename) and the switch of current (activateVersion) run on this
 * machine's file system, with the Windows rule and a file system whose first
 * N renames are refused as a scanner's hold refuses them. They succeed; a
 * hold that never ends leaves what stood before as it was and says so in the
 * one sentence. The layout is this machine's (current a link on POSIX, a
 * pointer file on Windows), so the same tests run under the Wine lane.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "pathe";
import { heldSentence, heldWaits } from "../../src/core/held-file";
import { prefixLayout, type Layout, type Platform } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { activateVersion, parseHistory, readCurrent } from "../../src/install/activate";
import { type LockRules, machineRules } from "../../src/io/locked-retry";
import { publishByRename, stagingPath } from "../../src/io/staging";

const machine: Platform = process.platform === "win32" ? "win32" : "linux";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "gss-held-"));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/**
 * This machine's file system, whose first `times` renames are refused with
 * `code` (Infinity: every one), on the Windows rule, with waits recorded,
 * not waited. Removals go through.
 */
function heldRenames(times: number, code = "EPERM") {
  const renames: string[] = [];
  const waits: number[] = [];
  const rules: LockRules = {
    platform: "win32",
    fs: {
      ...machineRules.fs,
      rename: async (from, to) => {
        renames.push(String(to));
        if (renames.length <= times) throw Object.assign(new Error(`${code}: operation not permitted, rename '${from}'`), { code, path: String(from) });
        await fs.rename(from, to);
      },
    },
    sleep: async (ms) => void waits.push(ms),
    sleepSync: (ms) => void waits.push(ms),
  };
  return { rules, renames, waits };
}

describe("an install's publish of a runtime", () => {
  async function staged(dir: string): Promise<string> {
    const staging = stagingPath(dir, "staging", { label: "node-24.21.0" });
    await fs.mkdir(join(staging, "bin"), { recursive: true });
    await fs.writeFile(join(staging, "bin", "node"), "the runtime");
    return staging;
  }

  it("lands when its first renames are refused, as a scanner reading it refuses them", async () => {
    const runtime = join(root, "runtime");
    await fs.mkdir(runtime);
    const staging = await staged(runtime);
    const { rules, renames, waits } = heldRenames(4);
    await publishByRename(staging, join(runtime, "node-24.21.0"), rules);
    expect(await fs.readFile(join(runtime, "node-24.21.0", "bin", "node"), "utf8")).toBe("the runtime");
    expect(existsSync(staging)).toBe(false);
    expect(renames).toHaveLength(5);
    expect(waits).toEqual(heldWaits().slice(0, 4));
  });

  it("held for good, leaves no runtime half in place: the staging stays whole, nothing stands at the runtime's name, and the sentence names it", async () => {
    const runtime = join(root, "runtime");
    await fs.mkdir(runtime);
    const staging = await staged(runtime);
    const dest = join(runtime, "node-24.21.0");
    const { rules } = heldRenames(Number.POSITIVE_INFINITY);
    await expect(publishByRename(staging, dest, rules)).rejects.toThrow(heldSentence({ rename: staging, to: dest }));
    expect(existsSync(dest)).toBe(false);
    expect(await fs.readFile(join(staging, "bin", "node"), "utf8")).toBe("the runtime");
  });

  it("on POSIX rules a refused rename fails at once, not after 10 s", async () => {
    const runtime = join(root, "runtime");
    await fs.mkdir(runtime);
    const staging = await staged(runtime);
    const { rules, renames, waits } = heldRenames(1);
    await expect(publishByRename(staging, join(runtime, "node-24.21.0"), { ...rules, platform: "linux" })).rejects.toMatchObject({ code: "EPERM" });
    expect(renames).toHaveLength(1);
    expect(waits).toEqual([]);
  });
});

describe("an upgrade's switch of current", () => {
  let layout: Layout;
  const OLD = "4.0.0-1.6.0";
  const NEW = "4.1.0-1.6.0";
  beforeEach(async () => {
    layout = prefixLayout({ home: root, platform: machine, pins: productionPins });
    for (const id of [OLD, NEW]) await fs.mkdir(join(layout.versions, id), { recursive: true });
    await activateVersion(layout, OLD);
  });

  /** What stands beside current but current and versions.history: a staging left behind. */
  async function leftBeside(): Promise<string[]> {
    return (await fs.readdir(dirname(layout.current))).filter((n) => n.startsWith("."));
  }

  it("switches when its first renames are refused", async () => {
    const { rules, renames } = heldRenames(3, "EBUSY");
    await expect(activateVersion(layout, NEW, rules)).resolves.toEqual({ previous: OLD });
    expect(await readCurrent(layout)).toBe(NEW);
    expect(parseHistory(await fs.readFile(layout.history, "utf8"))).toEqual([NEW, OLD]);
    expect(renames.slice(0, 4)).toEqual([layout.current, layout.current, layout.current, layout.current]);
    expect(await leftBeside()).toEqual([]);
  });

  it("held for good, leaves current naming the version it named, the history as it was, and says which file another program holds", async () => {
    const history = await fs.readFile(layout.history, "utf8");
    const { rules } = heldRenames(Number.POSITIVE_INFINITY, "EACCES");
    const error = (await activateVersion(layout, NEW, rules).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(`could not be renamed to ${layout.current} for 10 s: another program holds one of them`);
    expect(error.message).toContain("an antivirus scanner, for example");
    expect(await readCurrent(layout)).toBe(OLD);
    expect(await fs.readFile(layout.history, "utf8")).toBe(history);
    expect(await leftBeside()).toEqual([]);
  });
});
