/**
 * Step marks. For `npm run bench`: when GSS_STEP_TIMES names a file, each
 * mark appends one JSON line `{"mark": "...", "at": <epoch ms>, "sinceStart": <ms>}`
 * to it, sinceStart counted from this Node's start (the
 * bench reads them beside its floors). Without the variable nothing happens.
 * A mark never fails the install: an unwritable file only loses the mark.
 * The file is opened without following a link.
 * For the kill tests: in a test build, a mark is also where GSS_HOLD_AT can
 * stop the process (./kill-hold.ts), after the mark is written.
 */
import { closeSync, openSync, writeSync, constants } from "node:fs";
import { holdAt } from "./kill-hold";

// The global `performance` (node:perf_hooks is not loaded for it: a launch pays for every module it loads).
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

export function stepMark(mark: string, env: Record<string, string | undefined>): void {
  timeMark(mark, env);
  holdAt(mark, env);
}

function timeMark(mark: string, env: Record<string, string | undefined>): void {
  const file = env.GSS_STEP_TIMES;
  if (!file) return;
  try {
    const fd = openSync(file, APPEND, 0o600);
    try {
      const sinceStart = performance.now();
      writeSync(fd, `${JSON.stringify({ mark, at: performance.timeOrigin + sinceStart, sinceStart })}\n`);
    } finally {
      closeSync(fd);
    }
  } catch {
    // The bench sees the mark missing.
  }
}
