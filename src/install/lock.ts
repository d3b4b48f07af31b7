/**
 * One installer at a time: a lock file in the prefix holding the owner's pid
 * and a random token. It is created complete (written aside, then linked into
 * place, which fails when a lock exists), so no reader ever sees it empty.
 * A second installer waits a bounded time, then stops with a clear message;
 * a lock whose process is gone is taken over.
 */
import { errnoCode } from "../core/errno";
import { promises as fs } from "node:fs";
import { randomBytes } from "node:crypto";
import type { Layout } from "../core/layout";
import { readTextOrNull } from "../io/files";
import { isAlive } from "../io/process";
import { rename, rm } from "../io/locked-retry";

export interface Lock {
  release(): Promise<void>;
}

/** The pid a lock (or its breaker) names: the first word of its text. */
export function lockHolderPid(text: string | null): number {
  return Number(text?.trim().split(/\s+/)[0]);
}

/**
 * Remove a lock whose process is gone, under a short-lived breaker lock
 * (`<lock>.break`, created exclusively), so only one installer at a time
 * ever moves the lock file: it reads the lock again under the breaker and
 * moves it only while it is still the stale lock it saw. Without the
 * breaker, two installers could each move a lock aside in turn, and the
 * second could move away the fresh lock the first had just created. A
 * breaker left by a process that died mid-break is taken away once its
 * process is gone.
 */
async function takeOverStale(lock: string, staleText: string | null): Promise<void> {
  const breaker = `${lock}.break`;
  const mine = `${process.pid} ${randomBytes(8).toString("hex")}\n`;
  if (!(await tryCreate(breaker, mine))) {
    const holder = lockHolderPid(await readTextOrNull(breaker));
    if (Number.isFinite(holder) && !isAlive(holder)) await moveAsideIf(breaker, await readTextOrNull(breaker));
    // Someone else is breaking it (or just did): look at the lock again.
    await new Promise((r) => setTimeout(r, 20));
    return;
  }
  try {
    if ((await readTextOrNull(lock)) === staleText) await moveAsideIf(lock, staleText);
  } finally {
    if ((await readTextOrNull(breaker)) === mine) await rm(breaker, { force: true });
  }
}

/** Rename `path` aside and delete it when it is `expected`; anything else is put back (link never replaces). */
async function moveAsideIf(path: string, expected: string | null): Promise<void> {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return;
    throw error;
  }
  const moved = await readTextOrNull(aside);
  if (moved !== expected) await fs.link(aside, path).catch(() => undefined);
  await rm(aside, { force: true });
}

async function tryCreate(lock: string, token: string): Promise<boolean> {
  const aside = `${lock}.new-${process.pid}-${randomBytes(4).toString("hex")}`;
  await fs.writeFile(aside, token, { mode: 0o600, flag: "wx" });
  try {
    await fs.link(aside, lock);
    return true;
  } catch (error) {
    if (errnoCode(error) === "EEXIST") return false;
    throw error;
  } finally {
    await rm(aside, { force: true });
  }
}

export async function acquireInstallLock(layout: Layout, waitMs = 60_000, onWait?: (pid: number) => void): Promise<Lock> {
  const deadline = Date.now() + waitMs;
  const token = `${process.pid} ${randomBytes(8).toString("hex")}\n`;
  let told = false;
  for (;;) {
    if (await tryCreate(layout.lock, token)) {
      return {
        release: async () => {
          if ((await readTextOrNull(layout.lock)) === token) await rm(layout.lock, { force: true });
        },
      };
    }
    const text = await readTextOrNull(layout.lock);
    if (text === null) continue;
    const holder = lockHolderPid(text);
    if (!isAlive(holder)) {
      await takeOverStale(layout.lock, text);
      continue;
    }
    if (!told) {
      onWait?.(holder);
      told = true;
    }
    if (Date.now() >= deadline) {
      throw new Error(`another gentle-shell-setup (process ${holder}) is working in this Gentle Shell folder; wait for it to finish, then run this again`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
