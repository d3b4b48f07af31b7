/**
 * Kill tests that land every time (issue 47). A command is started in its
 * own process group and killed with SIGKILL at a named point, by one of two
 * means:
 *
 * - `{ hold: mark }`: the command's own step mark (src/io/step-times.ts).
 *   A test build stops the process there (src/io/kill-hold-test.ts) and says
 *   so in a file; the group is killed once that file names the mark. Nothing
 *   moves on between the point and the kill, however loaded the machine is.
 * - `{ stopWhen }`: a point inside a program that is not ours (pnpm in the
 *   middle of its work), seen from outside. The group is stopped (SIGSTOP)
 *   the first time the trigger holds, `seen` is read while nothing runs, then
 *   the group is killed.
 *
 * Either way `landed` is true only when the point was reached and the
 * command died of the kill, never when it finished first: each test asserts
 * it. Nothing here waits for a time: the only limit is `timeoutMs`, after
 * which the group is killed and the result says the point was never reached.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type KillPoint = { hold: string } | { stopWhen: () => boolean };

export interface KillResult<T> {
  /** The point was reached and the command died of the kill. */
  landed: boolean;
  /** Why it did not land, for the test's message. */
  why: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** What `seen` read at the point (with `stopWhen`, while the group was stopped; with `hold`, while it was held). */
  seen: T | undefined;
}

const POLL_MS = 5;

/** Whether any process of group `pgid` is still there. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is gone: the exit then says it finished before the point, which `landed` reports.
  }
}

export async function killGroupAt<T = undefined>(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; timeoutMs?: number; seen?: () => T },
  point: KillPoint,
): Promise<KillResult<T>> {
  const dir = mkdtempSync(join(tmpdir(), "gss-hold-"));
  const holdFile = join(dir, "held");
  const env = "hold" in point ? { ...options.env, GSS_HOLD_AT: point.hold, GSS_HOLD_FILE: holdFile } : options.env;
  const child = spawn(command, args, { env, cwd: options.cwd, detached: true, stdio: "ignore" });
  const pgid = child.pid!;
  let exitedFirst = false;
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on("exit", (code, signal) => {
      exitedFirst = !reached;
      resolve([code, signal]);
    }),
  );
  let reached = false;
  let seen: T | undefined;
  let why = "";
  const reachedNow = (): boolean => {
    if ("hold" in point) {
      if (!existsSync(holdFile)) return false;
      const [, ...mark] = readFileSync(holdFile, "utf8").trim().split(" ");
      if (mark.join(" ") !== point.hold) throw new Error(`the hold file names ${mark.join(" ")}, not ${point.hold}`);
      return true;
    }
    return point.stopWhen();
  };
  const timeout = setTimeout(() => {
    if (reached) return;
    why = `the point was not reached within ${options.timeoutMs ?? 240_000} ms`;
    reached = true;
    signalGroup(pgid, "SIGKILL");
  }, options.timeoutMs ?? 240_000);
  const poll = setInterval(() => {
    if (reached || exitedFirst) return;
    if (!reachedNow()) return;
    reached = true;
    if (!("hold" in point)) signalGroup(pgid, "SIGSTOP");
    seen = options.seen?.();
    signalGroup(pgid, "SIGKILL");
  }, POLL_MS);
  const [code, signal] = await exited;
  clearInterval(poll);
  clearTimeout(timeout);
  // Its other processes (pnpm, a version's engine) die of the same kill: wait until the group is empty.
  // (A zombie whose new parent does not reap it would count as alive: ten seconds at most.)
  for (const end = Date.now() + 10_000; groupAlive(pgid) && Date.now() < end; ) await new Promise((r) => setTimeout(r, POLL_MS));
  rmSync(dir, { recursive: true, force: true });
  if (!why && exitedFirst) why = `it exited by itself (${code ?? signal}) before the point`;
  if (!why && signal !== "SIGKILL") why = `it ended with ${code ?? signal}, not the kill`;
  return { landed: !why, why, code, signal, seen };
}
