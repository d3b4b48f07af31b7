/**
 * A self-uninstall killed partway can always be finished (issue 25, defect
 * 7). A real `gentle-shell self-uninstall --include-shared` is killed with
 * SIGKILL at each point of its removal order: after the PATH entry, then
 * after each of the plan's entries, held at its step mark (a test build
 * stops there, test/support/kill-at.ts) so the kill lands at that point
 * every time (issue 47), and the test asserts it did. The launcher is run again; where it can no longer
 * start, it names `gentle-shell-setup uninstall`, and that command (the
 * fixture binary) finishes the job. Either way the prefix is gone, the
 * profile is the user's again byte for byte, and nothing else in the home
 * changed.
 */
import { describe, expect, it } from "vitest";
import { existsSync, lstatSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { prefixLayout } from "../../src/core/layout";
import { uninstallPlan } from "../../src/commands/self-uninstall/removal-plan";
import { NO_ACTIVE_VERSION, NO_ACTIVE_VERSION_HINT, NODE_MISSING } from "../../src/install/launcher";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { installed } from "../support/installed";
import { killGroupAt } from "../support/kill-at";
import { runCommand } from "../support/proc";
import { treeSnapshot } from "../support/tree";

const f = fixtures();
const PROFILE = "# my bashrc\nalias ll='ls -l'\n";

/** A fresh copy of the run's shared install, and the plan its self-uninstall --include-shared follows. */
async function install() {
  const i = await installed(f, { files: { ".bashrc": PROFILE } });
  const layout = prefixLayout({ home: i.home, platform: "linux", pins: f.pins });
  const plan = await uninstallPlan(layout, homeEnv(i.home), true);
  return { i, layout, plan };
}

/** Whether anything stands at `path`, a link whose target went included. */
const present = (path: string): boolean => lstatSync(path, { throwIfNoEntry: false }) !== undefined;

/** The hold point after the PATH entry and the first `k` of the plan's entries (src/commands/self-uninstall/run.ts). */
const pointAt = (k: number): string => (k === 0 ? "uninstall:path" : `uninstall:removed ${k}`);

/**
 * The real self-uninstall --include-shared, killed (SIGKILL, its whole group) at the point after the PATH entry and
 * the first `k` of the plan's entries (in `copy`, else a fresh copy). The kill must land there: the PATH entry is
 * gone, the first `k` entries are gone and every later one is still there.
 */
async function interruptedAt(k: number, copy?: Awaited<ReturnType<typeof install>>) {
  const { i, layout, plan } = copy ?? (await install());
  const outside = () => treeSnapshot(i.root, { skip: [layout.prefix, join(i.home, ".bashrc")] });
  const before = await outside();
  expect(plan.path, "the install has a PATH entry to take back").not.toBeNull();
  const killed = await killGroupAt(i.gs, ["self-uninstall", "--yes", "--include-shared"], { env: homeEnv(i.home), cwd: i.home }, { hold: pointAt(k) });
  expect(killed.landed, `point ${k}: ${killed.why}`).toBe(true);
  expect(await fs.readFile(join(i.home, ".bashrc"), "utf8"), `point ${k}: the PATH entry went first`).toBe(PROFILE);
  plan.remove.forEach((r, n) => {
    // An entry removed only when empty may have been empty-only and kept: only the others are told apart.
    if (r.emptyOnly) return;
    expect(present(r.path), `point ${k}: entry ${n + 1} ${r.path}`).toBe(n >= k);
  });
  return { i, layout, before, outside };
}

/** Finish as a user would: the launcher again, else the command it printed; the binary itself once the launcher is gone. */
async function finish(k: number, i: Awaited<ReturnType<typeof interruptedAt>>["i"], seen: Set<string>) {
  const env = homeEnv(i.home);
  if (existsSync(i.gs)) {
    const again = await runCommand(i.gs, ["self-uninstall", "--yes", "--include-shared"], { env, cwd: i.home });
    if (again.code === 0) return "launcher";
    // The launcher cannot start any more. With no active version it prints the spec's sentence exactly, then on a
    // line of its own how to finish; the engine that cannot accept the install says both in one line.
    const noVersion = `${NO_ACTIVE_VERSION}\n${NO_ACTIVE_VERSION_HINT}\n`;
    if (again.stderr.startsWith(`${NO_ACTIVE_VERSION}\n`)) expect(again.stderr, `point ${k}`).toBe(noVersion);
    else if (again.stderr.startsWith(NODE_MISSING)) {
      // Node went before the version: the launcher names it, then the same line on how to finish.
      expect(again.stderr.split("\n").slice(1), `point ${k}`).toEqual([NO_ACTIVE_VERSION_HINT, ""]);
    } else {
      expect(again.stderr, `point ${k}: ${again.stdout}`).toMatch(/finish removing Gentle Shell with gentle-shell-setup uninstall\n$/);
      expect(again.stderr.trim().split("\n")).toHaveLength(1);
    }
    seen.add(again.stderr === noVersion ? "no active version" : again.stderr.startsWith(NODE_MISSING) ? "no node" : "engine");
  }
  const finished = await runCommand(f.binary!, ["uninstall", "--yes", "--include-shared"], { env, cwd: i.home });
  expect(finished.code, `point ${k}: ${finished.stdout}${finished.stderr}`).toBe(0);
  expect(finished.stdout).toContain("gentle-shell-setup finishes removing it itself");
  expect(finished.stdout).toContain("Gentle Shell is uninstalled.");
  return "setup binary";
}

describe("an interrupted self-uninstall", () => {
  it("is finished from every point of its removal order by the command the launcher prints, and nothing outside the prefix changes", async () => {
    // The first copy gives the removal order, then serves as point 0's.
    const first = await install();
    const { plan } = first;
    expect(plan.remove.length, "a removal order of many points").toBeGreaterThanOrEqual(10);
    expect(plan.remove.at(-1)!.last).toBe(true);
    // 0 (only the PATH entry went), one point among the entries before the launch group (the launcher still runs
    // there, as at 0), then every point in the launch group, where the launcher stops being able to start.
    const firstLast = plan.remove.findIndex((r) => r.last);
    // The command removes the entries that are not last first, then the last ones: the order the points count in.
    expect(plan.remove.slice(firstLast).every((r) => r.last) && plan.remove.slice(0, firstLast).every((r) => !r.last)).toBe(true);
    const points = [0, Math.floor(firstLast / 2), ...Array.from({ length: plan.remove.length - firstLast }, (_, n) => firstLast + n)];
    const by = new Set<string>();
    const seen = new Set<string>();
    // Every point at once, each on its own copy (its own HOME and prefix): the points share nothing.
    await Promise.all(
      points.map(async (k, n) => {
        const { i, layout, before, outside } = await interruptedAt(k, n === 0 ? first : undefined);
        by.add(await finish(k, i, seen));
        expect(existsSync(layout.prefix), `point ${k} left ${(await fs.readdir(layout.prefix).catch(() => [])).join(", ")}`).toBe(false);
        expect(await fs.readFile(join(i.home, ".bashrc"), "utf8")).toBe(PROFILE);
        expect(await outside(), `point ${k}`).toEqual(before);
        await fs.rm(i.root, { recursive: true, force: true });
      }),
    );
    expect([...by].sort()).toEqual(["launcher", "setup binary"]);
    // The launcher's own refusal was met (here every point where the launcher stops starting meets it).
    expect([...seen]).toContain("no active version");
  });

  it("the control: a hold past the last entry is never reached, so the kill does not land and the uninstall finishes", async () => {
    const { i, layout, plan } = await install();
    const after = pointAt(plan.remove.length + 1);
    const run = await killGroupAt(i.gs, ["self-uninstall", "--yes", "--include-shared"], { env: homeEnv(i.home), cwd: i.home }, { hold: after });
    expect(run.landed).toBe(false);
    expect(run.why).toBe("it exited by itself (0) before the point");
    expect(existsSync(layout.prefix)).toBe(false);
    await fs.rm(i.root, { recursive: true, force: true });
  });
});
