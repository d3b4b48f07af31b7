/**
 * One installer at a time: a lock file in the prefix holding the owner's pid
 * and a random token. It is created complete (written aside, then linked into
 * place, which fails when a lock exists), so no reader ever sees it empty.
 * A second installer waits a bounded time, then stops with a clear message;
 * a lock whose process is gone is taken over.
 */
import { promises as fs } from "node:fs";
import { randomBytes } from "node:crypto";
import type { Layout } from "../core/layout";
import { readTextOrNull } from "../io/files";
import { isAlive } from "../io/process";

export interface Lock {
  release(): Promise<void>;
}

function holderPid(text: string | null): number {
  return Number(text?.trim().split(/\s+/)[0]);
}

/**
 * Move a lock whose process is gone out of the way. The rename is atomic, so
 * of several installers only one moves a given file; if what it moved is not
 * the stale lock it saw (another installer took over meanwhile), it is put
 * back with link(), which never replaces a lock created in between.
 */
async function takeOverStale(lock: string, staleText: string | null): Promise<void> {
  const aside = `${lock}.stale-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    await fs.rename(lock, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const moved = await readTextOrNull(aside);
  if (moved !== staleText) await fs.link(aside, lock).catch(() => undefined);
  await fs.rm(aside, { force: true });
}

async function tryCreate(lock: string, token: string): Promise<boolean> {
  const aside = `${lock}.new-${process.pid}-${randomBytes(4).toString("hex")}`;
  await fs.writeFile(aside, token, { mode: 0o600, flag: "wx" });
  try {
    await fs.link(aside, lock);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await fs.rm(aside, { force: true });
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
          if ((await readTextOrNull(layout.lock)) === token) await fs.rm(layout.lock, { force: true });
        },
      };
    }
    const text = await readTextOrNull(layout.lock);
    if (text === null) continue;
    const holder = holderPid(text);
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
