/**
 * `memory migrate` killed with SIGKILL at each step boundary (spec:
 * "Recovering an interrupted migration"): the module runs in a child process
 * (support/child-bundle.ts) that stops at one boundary (its onStep), or
 * inside the fixture provider (FIXTURE_ENGRAM_PAUSE), and is killed there.
 * Before and after, the HOME, the provenance and the marker are snapshotted
 * (support/engram-store.ts); then the marker must block memory before any
 * probe, and a second run must refuse and explain, changing nothing.
 */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { engramLaunchEnvironment } from "../../src/installed/engram/launch";
import type { MigrateStep } from "../../src/commands/memory/migrate";
import { bundleChild } from "../support/child-bundle";
import { machine, serve, work, type Machine } from "../support/engram-machine";
import { MIGRATED, migrate, moved, provisioned, snapshot, tops } from "../support/engram-store";

const DRIVER = `
import { writeFileSync } from "node:fs";
import { prefixLayout } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { memoryMigrate } from "../../src/commands/memory/migrate";
const [home, port, stopAt, flag] = process.argv.slice(2) as [string, string, string, string];
const layout = prefixLayout({ home, platform: "linux", pins: productionPins });
const io = { env: process.env, out: (l: string) => process.stdout.write(l + "\\n"), err: (l: string) => process.stderr.write(l + "\\n") };
memoryMigrate(layout, ["migrate", "--confirm-quiescent"], io, {
  endpoint: { host: "127.0.0.1", port: Number(port) },
  onStep: (step) => {
    if (step !== stopAt) return;
    writeFileSync(flag, step);
    setInterval(() => {}, 1000);
    return new Promise<void>(() => {});
  },
}).then((code) => process.exit(code));
`;
let driver: Promise<string> | undefined;

async function waitFor(file: string, child: { exitCode: number | null; stderr: string[] }): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const text = await fs.readFile(file, "utf8").catch(() => null);
    if (text) return text;
    if (child.exitCode !== null) throw new Error(`the driver exited ${child.exitCode} before stopping: ${child.stderr.join("")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing wrote ${file}`);
}

/** Run the module in a child, stopped at `step` (or inside the provider with "provider"), then kill -9 it. */
async function killedAt(m: Machine, step: MigrateStep | "provider"): Promise<void> {
  driver ??= bundleChild(DRIVER, join(work, "migrate-driver.cjs"), "migrate-driver.ts");
  const flag = join(work, `stopped-${Math.random().toString(16).slice(2)}`);
  const env = { ...m.env, PATH: process.env.PATH, ...(step === "provider" ? { FIXTURE_ENGRAM_PAUSE: flag } : {}) };
  const child = spawn(process.execPath, [await driver, m.home, String(m.endpoint.port), step, flag], { env, stdio: ["ignore", "ignore", "pipe"] });
  const state = { exitCode: null as number | null, stderr: [] as string[] };
  child.stderr.setEncoding("utf8").on("data", (d: string) => state.stderr.push(d));
  const exited = new Promise<void>((done) =>
    child.on("exit", (code) => {
      state.exitCode = code ?? -1;
      done();
    }),
  );
  const stopped = await waitFor(flag, state);
  child.kill("SIGKILL");
  await exited;
  // The paused fixture provider is the test's own process too: stop it as well.
  const paused = /^paused (\d+)/.exec(stopped);
  if (paused) process.kill(Number(paused[1]), "SIGKILL");
}

describe("kill -9 at each step boundary", () => {
  it("inside the provider: no marker, nothing of the user's changed, the half copy kept; a second run migrates beside it", async () => {
    const m = await machine();
    await provisioned(m);
    const before = await snapshot(m);
    await killedAt(m, "provider");
    const after = await snapshot(m);
    const [half] = tops(after.home, ".engram.migrate-copy-");
    expect(after).toEqual({ ...before, home: { ...before.home, ...moved(after.home, half!, half!) } });
    const r = await migrate(m);
    expect(r.code).toBe(0);
    expect(moved((await snapshot(m)).home, half!, half!)).toEqual(moved(after.home, half!, half!));
  });

  it("after the provider: no marker, the migrated copy left beside an unchanged store and record", async () => {
    const m = await machine();
    await provisioned(m);
    const before = await snapshot(m);
    await killedAt(m, "provider-done");
    const after = await snapshot(m);
    const [copy] = tops(after.home, ".engram.migrate-copy-");
    expect(after).toEqual({ ...before, home: { ...before.home, ...moved(before.home, ".engram", copy!), [`${copy}/.fixture-migrated`]: MIGRATED } });
  });

  for (const step of ["marker-written", "original-moved", "copy-promoted", "provenance-written"] as const) {
    it(`after ${step}: the marker blocks memory before any probe, and a second run refuses and explains, changing nothing`, async () => {
      const m = await machine();
      const { id, provenance } = await provisioned(m);
      const before = await snapshot(m);
      await killedAt(m, step);
      const after = await snapshot(m);
      const marker = JSON.parse(after.marker!);
      const copyName = marker.output.slice(m.home.length + 1);
      const backupName = marker.backup.slice(m.home.length + 1);
      expect(marker).toMatchObject({ source: join(m.home, ".engram"), instance_id: id, originalProvenance: provenance });
      const original = moved(before.home, ".engram", ".engram");
      const migrated = { ...original, ".engram/.fixture-migrated": MIGRATED };
      const expected = {
        "marker-written": { ...original, ...moved(migrated, ".engram", copyName) },
        "original-moved": { ...moved(original, ".engram", backupName), ...moved(migrated, ".engram", copyName) },
        "copy-promoted": { ...moved(original, ".engram", backupName), ...migrated },
        "provenance-written": { ...moved(original, ".engram", backupName), ...migrated },
      }[step];
      expect(after.home).toEqual(expected);
      if (step === "provenance-written") expect(after.provenance).not.toBe(provenance);
      else expect(after.provenance).toBe(provenance);

      // Memory is blocked before any probe: a ready server on the endpoint is never asked, no core is started.
      const server = await serve("ready");
      const launch = await engramLaunchEnvironment(m.layout, m.env, "final", { endpoint: { host: "127.0.0.1", port: server.port } });
      expect(launch.decision.row).toBe("migration-marker");
      expect(launch.notice).toMatch(/engram-migration\.json.*run gentle-shell memory migrate to see what it records/);
      expect(launch.set).toEqual({
        ENGRAM_BIN: m.layout.guard,
        ENGRAM_STARTUP_POLICY: "disabled",
        ENGRAM_STARTUP_NOTICE: launch.notice ?? expect.stringMatching(/^gentle-shell: /),
      });
      expect(server.requests).toEqual([]);

      const startsBefore = await m.starts();
      const r = await migrate(m);
      expect(r.code).toBe(1);
      expect(r.out).toEqual([]);
      const text = r.err.join("\n");
      expect(r.err[0]).toContain("an interrupted memory migration is recorded in");
      for (const value of [marker.source, marker.output, marker.backup, JSON.stringify(provenance)]) expect(text).toContain(value);
      expect(text).toMatch(/quarantine name.*\n.*do not replace .* with the incomplete output/);
      expect(text).toMatch(/Restore originalProvenance atomically.*preserving the old core hash exactly/);
      expect(text).toMatch(/Only after the source identity and the provenance are reconciled, remove/);
      expect(await m.starts()).toEqual(startsBefore);
      expect(await snapshot(m)).toEqual(after);
    });
  }
});
