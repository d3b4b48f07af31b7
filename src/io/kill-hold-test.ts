/**
 * A test build's ./kill-hold.ts (build/bundle.mjs swaps it in; a release
 * build never loads this file). When GSS_HOLD_AT names the mark (`mark`, or
 * `mark#n` for the n-th time this process makes it), the process
 * says so in GSS_HOLD_FILE (`<pid> <mark>`, published with one rename, so a
 * test never reads half of it), then blocks its thread: no timer, no
 * callback, no child's exit moves it on. A test that never kills it does not
 * leave it behind for long: after ten minutes the hold fails its command.
 */
import * as fs from "node:fs";
import type { Env } from "../core/environment";
import { renameSync } from "./locked-retry";

const GIVE_UP_MS = 10 * 60_000;
const made = new Map<string, number>();

export function holdAt(mark: string, env: Env): void {
  const at = env.GSS_HOLD_AT;
  if (!at) return;
  const times = (made.get(mark) ?? 0) + 1;
  made.set(mark, times);
  if (at !== mark && at !== `${mark}#${times}`) return;
  const file = env.GSS_HOLD_FILE;
  if (file) {
    const part = `${file}.${process.pid}`;
    fs.writeFileSync(part, `${process.pid} ${at}\n`, { mode: 0o600 });
    renameSync(fs, part, file);
  }
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, GIVE_UP_MS);
  throw new Error(`held at ${at} for ten minutes and no test stopped it`);
}
