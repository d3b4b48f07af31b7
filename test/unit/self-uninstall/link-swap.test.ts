/**
 * Self-uninstall between its plan and its removal (spec: "Self-uninstall",
 * Removed: "a link in their place ... is kept and named, and no link inside
 * them is followed"; issue 14, Careful writes and removals). The question
 * after the plan is where another process gets its chance: there each test
 * swaps an entry for a link to a folder or file outside the prefix, then
 * answers yes. Each entry is lstat-checked again right before it goes, and the
 * recursive removal never follows a link: the link's target keeps its content.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { selfUninstall } from "../../../src/commands/self-uninstall/run";
import { ID, layOut, recordingIo, scratchRoot, tree, type Laid } from "./fixture";
import { requires } from "../../support/capabilities";

let laid: Laid;
let outside: string;
beforeEach(async () => {
  laid = await layOut(scratchRoot(), "linux");
  // What another process points our entries at: the user's own folder and file.
  outside = join(laid.root, "precious");
  await fs.mkdir(join(outside, "folder"), { recursive: true });
  await fs.writeFile(join(outside, "folder", "keep.txt"), "the user's\n");
  await fs.writeFile(join(outside, "file.txt"), "the user's file\n");
});
afterEach(async () => {
  if (laid) await fs.rm(laid.root, { recursive: true, force: true });
});

const options = { dryRun: false, yes: false, includeShared: false, lockWaitMs: 1000 };

/** Answers yes to the removal after running `swap`, as if another process did it while the question waited. */
function swapThenYes(swap: () => Promise<void>) {
  const rec = recordingIo();
  rec.io.ask = async (q) => {
    rec.questions.push(q);
    if (rec.questions.length > 1) return false;
    await swap();
    return true;
  };
  return rec;
}

async function outsideIntact() {
  expect(await tree(outside)).toEqual(["file.txt", "folder", "folder/keep.txt"]);
  expect(await fs.readFile(join(outside, "folder", "keep.txt"), "utf8")).toBe("the user's\n");
  expect(await fs.readFile(join(outside, "file.txt"), "utf8")).toBe("the user's file\n");
}

describe("an entry swapped for a link after the plan", () => {
  it("a folder the plan saw (pnpm/) that is now a link is kept and named, and nothing is removed through it", async (ctx) => {
    requires(ctx, "symlinks");
    const { layout, home } = laid;
    const { io, lines } = swapThenYes(async () => {
      await fs.rm(layout.pnpm.home, { recursive: true });
      await fs.symlink(join(outside, "folder"), layout.pnpm.home);
    });
    expect(await selfUninstall(layout, { HOME: home }, options, io)).toBe(0);
    await outsideIntact();
    expect((await fs.lstat(layout.pnpm.home)).isSymbolicLink()).toBe(true);
    expect(lines).toContain("Kept ~/.gentle-shell/pnpm: it became a link after the plan was made, and a link is never followed.");
    // The rest went, and the prefix stays for what it still holds.
    expect(await tree(layout.prefix)).toEqual(["agent", "pnpm"]);
  });

  it("a file the plan saw (versions.history) that is now a link to the user's file is kept, and the file keeps its bytes", async (ctx) => {
    requires(ctx, "symlinks");
    const { layout, home } = laid;
    const { io, lines } = swapThenYes(async () => {
      await fs.rm(layout.history);
      await fs.symlink(join(outside, "file.txt"), layout.history);
    });
    expect(await selfUninstall(layout, { HOME: home }, options, io)).toBe(0);
    await outsideIntact();
    expect(lines).toContain("Kept ~/.gentle-shell/versions.history: it became a link after the plan was made, and a link is never followed.");
  });

  it("a folder swapped for another real folder (not the one the plan saw) is kept too", async () => {
    const { layout, home } = laid;
    const { io, lines } = swapThenYes(async () => {
      await fs.rename(layout.gentleAi, join(laid.root, "moved-away"));
      await fs.mkdir(layout.gentleAi);
      await fs.writeFile(join(layout.gentleAi, "new.txt"), "x");
    });
    expect(await selfUninstall(layout, { HOME: home }, options, io)).toBe(0);
    expect(lines).toContain("Kept ~/.gentle-shell/gentle-ai: it changed after the plan was made.");
    expect(await fs.readFile(join(layout.gentleAi, "new.txt"), "utf8")).toBe("x");
  });
});

describe("a link swapped in deep inside a folder that goes", () => {
  it("removes the link itself, never what it points at", async (ctx) => {
    requires(ctx, "symlinks");
    const { layout, home } = laid;
    const deep = join(layout.versions, ID, "node_modules", "gentle-pi");
    const file = join(layout.nodeDir, "node_modules", "npm", "package.json");
    const { io } = swapThenYes(async () => {
      await fs.rm(deep, { recursive: true });
      await fs.symlink(join(outside, "folder"), deep);
      await fs.rm(file);
      await fs.symlink(join(outside, "file.txt"), file);
    });
    expect(await selfUninstall(layout, { HOME: home }, options, io)).toBe(0);
    await outsideIntact();
    // versions/ and runtime/ went whole, links and all.
    expect(await tree(layout.prefix)).toEqual(["agent"]);
  });
});
