/**
 * removeTree against a racing swapper (issue 39, defect 3; spec:
 * "Self-uninstall", Removed: "no link inside them is followed"). Another
 * process keeps renaming real folders of the tree and links to a folder
 * outside it into each other's place while the tree goes
 * (support/link-swapper.ts). Not one outside file may go, in any run: the
 * tree is gone, or the removal stopped with a RemoveError. The removal that
 * resolved paths again at each call deleted outside files in some runs of
 * every execution (3 to 6 of 10 here).
 */
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { normalize } from "node:path";
import { join } from "pathe";
import { CHANGED, RemoveError, removeTree } from "../../src/io/remove-tree";
import { requires, setImmutable } from "../support/capabilities";
import { heldWaits } from "../../src/core/held-file";
import { type LockRules, machineRules } from "../../src/io/locked-retry";
import { layPairs, outsideLost, startSwapper, type Swapper } from "../support/link-swapper";

const FILES = 150;
const RUNS = 10;
const PAIRS = 3;

let root: string | undefined;
let swapper: Swapper | undefined;
afterEach(async () => {
  await swapper?.stop();
  swapper = undefined;
  if (root) await fs.rm(root, { recursive: true, force: true });
  root = undefined;
});

function scratch(): string {
  root = realpathSync(mkdtempSync(join(tmpdir(), "gss-remove-race-")));
  return root;
}

describe("removeTree while another process swaps a folder and a link to an outside folder", () => {
  it("never deletes a file outside the tree, in any run: the tree goes, or a RemoveError says what would not", async (ctx) => {
    requires(ctx, "symlinks");
    const base = scratch();
    const outcomes: string[] = [];
    const lost: number[] = [];
    const rounds: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const tree = join(base, `run${run}`, "tree");
      const outside = join(base, `run${run}`, "outside");
      const cache = join(tree, "pnpm", "cache");
      await layPairs(cache, outside, PAIRS, FILES);
      swapper = await startSwapper(cache, PAIRS);
      const outcome = await removeTree(tree).then(
        () => "removed",
        (error: unknown) => error,
      );
      rounds.push(await swapper.stop());
      swapper = undefined;
      lost.push(await outsideLost(outside, FILES));
      if (outcome === "removed") {
        await expect(fs.lstat(tree)).rejects.toMatchObject({ code: "ENOENT" });
        outcomes.push("removed");
      } else {
        expect(outcome).toBeInstanceOf(RemoveError);
        expect((outcome as RemoveError).message).toMatch(/could not be removed \(.+\)$/);
        outcomes.push((outcome as RemoveError).code);
      }
    }
    // Outside files lost, run by run: none in any.
    expect(lost).toEqual(lost.map(() => 0));
    // The runs raced: the swapper went on swapping while the trees went (a busy machine may leave it a run without a turn).
    expect(rounds.filter((n) => n > 0).length, rounds.join(", ")).toBeGreaterThan(RUNS / 2);
    // The swapper does not make the removal give up: most trees still go.
    expect(outcomes.filter((o) => o === "removed").length, outcomes.join(", ")).toBeGreaterThan(RUNS / 2);
  }, 120_000);
});

describe("removeTree", () => {
  it("removes a tree with links in it, the links themselves, and leaves the working folder where it was", async (ctx) => {
    requires(ctx, "symlinks");
    const base = scratch();
    const tree = join(base, "tree");
    await fs.mkdir(join(base, "outside"));
    await fs.writeFile(join(base, "outside", "keep.txt"), "x");
    await fs.mkdir(join(tree, "a", "b"), { recursive: true });
    await fs.writeFile(join(tree, "a", "b", "file"), "ours");
    await fs.symlink(join(base, "outside"), join(tree, "a", "to-folder"));
    await fs.symlink(join(base, "outside", "keep.txt"), join(tree, "to-file"));
    const before = process.cwd();
    await removeTree(tree);
    expect(process.cwd()).toBe(before);
    await expect(fs.lstat(tree)).rejects.toMatchObject({ code: "ENOENT" });
    expect(await fs.readdir(join(base, "outside"))).toEqual(["keep.txt"]);
  });

  it("started from a folder inside the tree, ends in the tree's parent folder", async () => {
    const base = scratch();
    const tree = join(base, "tree");
    await fs.mkdir(join(tree, "inner"), { recursive: true });
    const before = process.cwd();
    process.chdir(join(tree, "inner"));
    try {
      await removeTree(tree);
      expect(process.cwd()).toBe(base);
    } finally {
      process.chdir(before);
    }
    await expect(fs.lstat(tree)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("removes a link at its root itself, never its target", async (ctx) => {
    requires(ctx, "symlinks");
    const base = scratch();
    await fs.mkdir(join(base, "target"));
    await fs.writeFile(join(base, "target", "keep.txt"), "x");
    await fs.symlink(join(base, "target"), join(base, "link"));
    await removeTree(join(base, "link"));
    await expect(fs.lstat(join(base, "link"))).rejects.toMatchObject({ code: "ENOENT" });
    expect(await fs.readdir(join(base, "target"))).toEqual(["keep.txt"]);
  });

  it("refuses a folder that is not the one the caller checked, and removes nothing", async () => {
    const base = scratch();
    const tree = join(base, "tree");
    await fs.mkdir(tree);
    await fs.writeFile(join(tree, "file"), "x");
    const checked = await fs.lstat(tree);
    await fs.rename(tree, join(base, "moved"));
    await fs.mkdir(tree);
    await fs.writeFile(join(tree, "other"), "y");
    // The path as the platform spells it (backslashes on Windows).
    await expect(removeTree(tree, checked)).rejects.toMatchObject({ path: normalize(tree), code: CHANGED });
    expect(await fs.readdir(tree)).toEqual(["other"]);
  });

  /** The Windows rule on this machine: an immutable file refuses its unlink with EPERM, as a scanner's hold does there. */
  function windowsRules(onWait: (ms: number) => void): LockRules {
    return { ...machineRules, platform: "win32", sleep: async (ms) => onWait(ms), sleepSync: (ms) => onWait(ms) };
  }

  it("on Windows' rule, waits for a file held for a moment inside the tree, then removes it", async (ctx) => {
    requires(ctx, "undeletable-files");
    const base = scratch();
    const held = join(base, "tree", "a", "held.txt");
    await fs.mkdir(join(base, "tree", "a"), { recursive: true });
    await fs.writeFile(held, "x");
    await fs.writeFile(join(base, "tree", "other"), "y");
    expect(setImmutable(held, true)).toBe(true);
    const waits: number[] = [];
    // The hold ends during the second wait.
    await removeTree(
      join(base, "tree"),
      undefined,
      windowsRules((ms) => waits.push(ms) === 2 && setImmutable(held, false)),
    );
    expect(waits).toEqual(heldWaits().slice(0, 2));
    await expect(fs.lstat(join(base, "tree"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("on Windows' rule, a file held for good fails with a RemoveError naming it, after every wait", async (ctx) => {
    requires(ctx, "undeletable-files");
    const base = scratch();
    const held = join(base, "tree", "held.txt");
    await fs.mkdir(join(base, "tree"));
    await fs.writeFile(held, "x");
    expect(setImmutable(held, true)).toBe(true);
    const waits: number[] = [];
    try {
      await expect(
        removeTree(
          join(base, "tree"),
          undefined,
          windowsRules((ms) => waits.push(ms)),
        ),
      ).rejects.toMatchObject({ path: held, code: "EPERM" });
    } finally {
      setImmutable(held, false);
    }
    expect(waits).toEqual(heldWaits());
    expect(await fs.readdir(join(base, "tree"))).toEqual(["held.txt"]);
  });

  it("is done when nothing is there", async () => {
    const base = scratch();
    await expect(removeTree(join(base, "absent"))).resolves.toBeUndefined();
  });
});
