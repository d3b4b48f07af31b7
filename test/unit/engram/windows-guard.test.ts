/**
 * Windows and the Engram guard (spec: "The guard", Windows): the guard is a
 * POSIX sh script, so on Windows it is never written; ENGRAM_BIN still names
 * its path, and a provider's spawn of it fails (ENOENT here, ENOENT or EINVAL
 * there), so memory fails closed: no engram runs, not even one on PATH. A
 * win32 layout on a scratch prefix, with a decoy engram on PATH that records
 * being run.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, promises as fs, readdirSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { afterEach, describe, expect, it } from "vitest";
import { prefixLayout } from "../../../src/core/layout";
import { engramLaunchEnvironment } from "../../../src/installed/engram/launch";
import { ensureLauncher, shQuote } from "../../../src/install/launcher";
import { productionPins } from "../../../src/pins/production";
import { requires } from "../../support/capabilities";

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

async function windowsPrefix() {
  const root = mkdtempSync(join(tmpdir(), "gss-win-guard-"));
  roots.push(root);
  const layout = prefixLayout({ home: root, platform: "win32", pins: productionPins, windowsPrefix: join(root, "gentle-shell") });
  await fs.mkdir(layout.prefix, { recursive: true });
  // A decoy engram where a PATH lookup would find it.
  const decoys = join(root, "decoys");
  const ran = join(root, "engram-ran");
  await fs.mkdir(decoys);
  await fs.writeFile(join(decoys, "engram"), `#!/bin/sh\n: > ${shQuote(ran)}\n`, { mode: 0o755 });
  return { layout, decoys, ran };
}

/** A loopback port with nothing listening. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("the Engram guard on Windows", () => {
  it("is never written: ensureLauncher writes the .cmd launcher and no guard", async () => {
    const { layout } = await windowsPrefix();
    const { launcher } = await ensureLauncher(layout);
    expect(launcher).toBe(layout.launcher);
    expect(existsSync(layout.launcher)).toBe(true);
    expect(existsSync(layout.guard)).toBe(false);
    expect(readdirSync(join(layout.guard, "..")).filter((name) => name.startsWith("engram-guard"))).toEqual([]);
    // Run again (an upgrade rewrites the launcher): still no guard.
    await ensureLauncher(layout);
    expect(existsSync(layout.guard)).toBe(false);
  });

  it("fails closed: ENGRAM_BIN names the unwritten guard, memory is disabled, and a spawn of it fails without running any engram", async (ctx) => {
    // Its stand-ins are POSIX programs (sh scripts, a POSIX layout's bin/node).
    requires(ctx, "posix-shell");
    const { layout, decoys, ran } = await windowsPrefix();
    await ensureLauncher(layout);
    const env = { Path: decoys, PATH: decoys, USERPROFILE: layout.home };
    const port = await closedPort();
    for (const [kind, options] of [
      ["skip", {}],
      ["classify", { endpoint: { host: "127.0.0.1", port }, schema: null }],
    ] as const) {
      const engram = await engramLaunchEnvironment(layout, env, kind, options);
      expect(engram.decision.memory, kind).toBe("disabled");
      expect(engram.set.ENGRAM_BIN).toBe(layout.guard);
      expect(engram.set.ENGRAM_STARTUP_POLICY).toBe("disabled");
      expect(engram.set.ENGRAM_URL).toBeUndefined();
      // What gentle-engram does first: run ENGRAM_BIN instance-id.
      const spawned = spawnSync(engram.set.ENGRAM_BIN!, ["instance-id"], { env: { ...env, ...engram.set } });
      expect((spawned.error as NodeJS.ErrnoException | undefined)?.code).toBe("ENOENT");
      expect(spawned.status).toBeNull();
    }
    expect(existsSync(ran)).toBe(false);
    // The decoy on PATH does run when asked by name: the spawn above would have found it had it searched PATH.
    spawnSync("engram", [], { env: { PATH: decoys } });
    expect(existsSync(ran)).toBe(true);
  });
});
