/**
 * An upgrade killed at any moment converges when it is run again (issue 29):
 * `gentle-shell upgrade` from the fixture release 4.0.0 to 4.1.0 is killed
 * (SIGKILL of its whole process group: the engine, pnpm, the new version's
 * engine, Pi's --version) at moments spread over one whole upgrade's length,
 * then run again. Each time the second run ends on the latest release, its
 * launcher reports it, a third run has nothing to do, and every version
 * folder left is a finished one.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { beforeAll, describe, expect, it } from "vitest";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { installed } from "../support/installed";
import { runCommand } from "../support/proc";

const f = fixtures();
const [older, latest] = [f.releases[0]!, f.releases[f.releases.length - 1]!];

function gs(home: string, args: string[]) {
  return runCommand(join(home, ".gentle-shell", "bin", "gentle-shell"), args, { env: homeEnv(home), cwd: home });
}

/** Start an upgrade in its own process group and kill the whole group after `ms`; resolves once it is gone. */
async function upgradeKilledAfter(home: string, ms: number): Promise<void> {
  const child = spawn(join(home, ".gentle-shell", "bin", "gentle-shell"), ["upgrade"], { env: homeEnv(home), cwd: home, detached: true, stdio: "ignore" });
  const exited = once(child, "exit");
  await new Promise((resolve) => setTimeout(resolve, ms));
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    // It had finished already: the rerun then has nothing to do.
  }
  await exited;
}

/** Every folder under versions/ holds the final marker naming itself. */
async function finishedVersions(home: string): Promise<string[]> {
  const versions = join(home, ".gentle-shell", "versions");
  const ids = (await fs.readdir(versions)).sort();
  for (const id of ids) {
    expect((await fs.readFile(join(versions, id, ".gentle-shell-version"), "utf8")).trim(), `versions/${id}`).toBe(id);
  }
  return ids;
}

/** One whole upgrade's length on this machine now, in ms. */
let length = 0;

beforeAll(async () => {
  const timing = (await installed(f, { release: older.shell })).home;
  const started = Date.now();
  const whole = await gs(timing, ["upgrade"]);
  expect(whole.code, whole.stdout + whole.stderr).toBe(0);
  length = Date.now() - started;
});

describe("an interrupted upgrade", () => {
  // Points spread over the whole run (the manifest, pnpm, the new engine and Pi's --version, the switch), each in its own home, at once.
  it.concurrent.each([0.1, 0.3, 0.5, 0.7, 0.9])("killed at %f of an upgrade's length converges when run again", async (fraction) => {
    const home = (await installed(f, { release: older.shell })).home;
    const at = Math.round(length * fraction);
    await upgradeKilledAfter(home, at);
    const again = await gs(home, ["upgrade"]);
    expect(again.code, `killed at ${at} ms of ${length}: ${again.stdout}${again.stderr}`).toBe(0);
    const version = await gs(home, ["--version"]);
    expect(version.stdout.split("\n").slice(0, 2), `killed at ${at} ms`).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
    const third = await gs(home, ["upgrade"]);
    expect(third.code).toBe(0);
    expect(third.stdout).toContain(`Gentle Shell ${latest.shell} with Pi ${latest.pi} is already current; nothing was changed.`);
    expect(await finishedVersions(home), `killed at ${at} ms`).toContain(latest.id);
  });
});
