/**
 * Self-uninstall without a valid receipt (spec: "Self-uninstall", PATH first:
 * "Without a valid receipt the plan names the entry to remove by hand, once,
 * and nothing is guessed"). The sentence is part of the plan; the run's last
 * messages do not repeat it, on POSIX or on Windows' layout.
 */
import { afterEach, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import type { Platform } from "../../../src/core/layout";
import { selfUninstall } from "../../../src/commands/self-uninstall/run";
import { layOut, recordingIo, scratchRoot, type Laid } from "./fixture";

let laid: Laid | null = null;
afterEach(async () => {
  if (laid) await fs.rm(laid.root, { recursive: true, force: true });
  laid = null;
});

const options = { dryRun: false, yes: true, includeShared: false, lockWaitMs: 1000 };

/** A receipt naming a file the installer never writes for this user: invalid, and it names what to remove. */
async function foreignReceipt(l: Laid) {
  const line = `export PATH="${l.layout.bin}:$PATH" # gentle-shell bundled install`;
  const receipt = { schema: 1, kind: "profile", path: join(l.home, "notes.txt"), line, create: false, separator: "" };
  await fs.writeFile(l.layout.pathReceipt, `${JSON.stringify(receipt)}\n`, { mode: 0o600 });
  return `Remove the gentle-shell PATH entry by hand: the line ${JSON.stringify(line)} in ~/notes.txt`;
}

describe.each<Platform>(["linux", "win32"])("self-uninstall on %s without a valid receipt", (platform) => {
  it("names the entry to remove by hand once, with the plan, and guesses nothing", async () => {
    laid = await layOut(scratchRoot(), platform);
    const manual = await foreignReceipt(laid);
    await fs.writeFile(join(laid.home, "notes.txt"), "mine\n");
    const { io, lines } = recordingIo([], { scheduleWindowsRemoval: async () => undefined });
    const env = platform === "win32" ? { USERPROFILE: laid.home } : { HOME: laid.home };
    expect(await selfUninstall(laid.layout, env, options, io), lines.join("\n")).toBe(0);
    expect(lines.filter((l) => l.includes("by hand"))).toEqual([manual]);
    // With the plan: before anything was removed.
    expect(lines.indexOf(manual)).toBeLessThan(lines.findIndex((l) => l.startsWith("✔ removed")));
    expect(lines.at(-1)).toBe("Gentle Shell is uninstalled. Open a new terminal so it no longer finds gentle-shell.");
    expect(await fs.readFile(join(laid.home, "notes.txt"), "utf8")).toBe("mine\n");
  });
});
