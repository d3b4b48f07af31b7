/**
 * One installer at a time: a lock file in the prefix holding the owner's pid.
 * A second installer waits a bounded time, then stops with a clear message; a
 * lock whose process is gone is taken over.
 */
import { constants, promises as fs } from "node:fs";
import type { Layout } from "../core/layout";
import { isAlive, readTextOrNull } from "../io/files";

export interface Lock {
  release(): Promise<void>;
}

/**
 * Move a lock whose process is gone out of the way. The rename is atomic, so
 * of several installers only one moves a given file; if what it moved is not
 * the stale lock it saw (another installer took it over meanwhile), it is put
 * back with link(), which never replaces a lock created in between.
 */
async function takeOverStale(lock: string, deadPid: number): Promise<void> {
  const aside = `${lock}.stale-${process.pid}`;
  try {
    await fs.rename(lock, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const moved = Number((await readTextOrNull(aside))?.trim());
  if (moved !== deadPid && isAlive(moved)) {
    await fs.link(aside, lock).catch(() => undefined);
  }
  await fs.rm(aside, { force: true });
}

export async function acquireInstallLock(layout: Layout, waitMs = 60_000, onWait?: (pid: number) => void): Promise<Lock> {
  const deadline = Date.now() + waitMs;
  let told = false;
  for (;;) {
    try {
      const handle = await fs.open(layout.lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return {
        release: async () => {
          const text = await readTextOrNull(layout.lock);
          if (text?.trim() === String(process.pid)) await fs.rm(layout.lock, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = Number((await readTextOrNull(layout.lock))?.trim());
    if (!isAlive(holder)) {
      await takeOverStale(layout.lock, holder);
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
