/**
 * self-uninstall --yes while another process races it (issue 39, defect 3;
 * spec: "Self-uninstall", Removed: "no link inside them is followed"): inside
 * pnpm/cache, real folders and links to a folder of the user's outside the
 * prefix are renamed into each other's place over and over
 * (support/link-swapper.ts) while the removal runs. The user's files all stay,
 * in every run; the prefix goes, or the one sentence names what would not.
 * Before, the removal deleted the user's files in some runs of every
 * execution (it resolved each path again at each call).
 */
import { afterEach, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { selfUninstall } from "../../../src/commands/self-uninstall/run";
import { layOut, recordingIo, scratchRoot } from "./fixture";
import { requires } from "../../support/capabilities";
import { layPairs, outsideLost, startSwapper, type Swapper } from "../../support/link-swapper";

const FILES = 150;
const PAIRS = 3;
const RUNS = 8;

let roots: string[] = [];
let swapper: Swapper | undefined;
afterEach(async () => {
  await swapper?.stop();
  swapper = undefined;
  for (const root of roots) await fs.rm(root, { recursive: true, force: true });
  roots = [];
});

describe("self-uninstall while another process swaps a folder and a link inside pnpm/cache", () => {
  it("never deletes the user's files the links point at: the prefix goes, or the failure is named", async (ctx) => {
    requires(ctx, "symlinks");
    const lost: number[] = [];
    const rounds: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const laid = await layOut(scratchRoot(), "linux");
      roots.push(laid.root);
      const outside = join(laid.home, "precious");
      await layPairs(laid.layout.pnpm.cache, outside, PAIRS, FILES);
      const { io, lines } = recordingIo();
      swapper = await startSwapper(laid.layout.pnpm.cache, PAIRS);
      const code = await selfUninstall(laid.layout, { HOME: laid.home }, { dryRun: false, yes: true, includeShared: false, lockWaitMs: 1000 }, io);
      rounds.push(await swapper.stop());
      swapper = undefined;
      lost.push(await outsideLost(outside, FILES));
      if (code === 0) {
        await expect(fs.lstat(laid.layout.pnpm.home)).rejects.toMatchObject({ code: "ENOENT" });
        expect(lines).toContain("Gentle Shell is uninstalled. Open a new terminal so it no longer finds gentle-shell.");
      } else {
        expect(code).toBe(1);
        expect(lines.filter((l) => l.startsWith("ERR ")).join("\n")).toMatch(/^ERR gentle-shell: could not remove ~\/\.gentle-shell\/pnpm\S* \(.+\)\./);
      }
    }
    expect(lost).toEqual(lost.map(() => 0));
    expect(rounds.filter((n) => n > 0).length, rounds.join(", ")).toBeGreaterThan(RUNS / 2);
  }, 120_000);
});
