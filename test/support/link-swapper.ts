/**
 * A racing process for the removal tests (issue 39, defect 3): in `dir` it
 * keeps exchanging each real folder d<i> with the link l<i> beside it (to a
 * folder outside the tree) by three renames, over and over, until it is
 * stopped. `layPairs` lays those pairs out, the outside folder holding files
 * of the same names as each real folder, as a store's folders do, so a
 * removal that resolves a swapped name at the wrong moment deletes them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import { join } from "pathe";

const SWAPPER = `
const fs = require("node:fs");
const [dir, pairs] = process.argv.slice(1);
const names = Array.from({ length: Number(pairs) }, (_, i) => [dir + "/d" + i, dir + "/l" + i, dir + "/t" + i]);
fs.writeSync(1, "ready\\n");
for (let n = 1; ; n++) {
  for (const [d, l, t] of names) {
    try { fs.renameSync(d, t); fs.renameSync(l, d); fs.renameSync(t, l); } catch {}
  }
  // A dot every 10 rounds: the test counts them, so a run is known to have raced.
  if (n % 10 === 0) fs.writeSync(1, ".");
}`;

/** The names every real folder and the outside folder hold. */
export function fileNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `f${i}.json`);
}

export const OUTSIDE_TEXT = "the user's\n";

/** In `dir`, `pairs` real folders d<i> of `count` files each and links l<i> to `outside`, which gets files of the same names. */
export async function layPairs(dir: string, outside: string, pairs: number, count: number): Promise<void> {
  const names = fileNames(count);
  await fs.mkdir(outside, { recursive: true });
  await Promise.all(names.map((n) => fs.writeFile(join(outside, n), OUTSIDE_TEXT)));
  for (let p = 0; p < pairs; p++) {
    await fs.mkdir(join(dir, `d${p}`), { recursive: true });
    await Promise.all(names.map((n) => fs.writeFile(join(dir, `d${p}`, n), "ours\n")));
    await fs.symlink(outside, join(dir, `l${p}`));
  }
}

/** How many of the outside folder's `count` files are gone or changed. */
export async function outsideLost(outside: string, count: number): Promise<number> {
  const kept = await Promise.all(fileNames(count).map((n) => fs.readFile(join(outside, n), "utf8").catch(() => null)));
  return kept.filter((k) => k !== OUTSIDE_TEXT).length;
}

export interface Swapper {
  child: ChildProcess;
  /** Kills it; answers how many rounds of swaps it had done by then. */
  stop(): Promise<number>;
}

/**
 * The swapper, once it is swapping. It is started right before a removal and
 * stopped right after, so the rounds `stop()` counts ran while the tree was
 * being removed.
 */
export async function startSwapper(dir: string, pairs: number): Promise<Swapper> {
  const child = spawn(process.execPath, ["-e", SWAPPER, dir, String(pairs)], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const ended = new Promise((resolve) => child.stdout?.once("end", resolve));
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.stdout?.once("data", () => resolve());
  });
  return {
    child,
    stop: async () => {
      child.kill("SIGKILL");
      await ended;
      return out.replace(/[^.]/g, "").length * 10;
    },
  };
}
