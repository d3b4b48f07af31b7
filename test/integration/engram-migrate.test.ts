/**
 * `gentle-shell memory migrate --confirm-quiescent` (spec: "Explicit recovery
 * after a core upgrade", "Recovering an interrupted migration"), through the
 * engine's module with a machine's layout and the real fixture `engram`
 * (support/engram.ts: a core with migrate-copy and one without, failure knobs
 * at each provider step). Every test snapshots the scratch HOME (~/.engram and
 * everything beside it, the prefix aside) and the provenance record before and
 * after, and asserts exactly what changed. The kills at each step boundary run
 * the module in a child process (support/child-bundle.ts) that stops there.
 */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { engramLaunchEnvironment } from "../../src/engine/engram/launch";
import { memoryMigrate, provenancePath, type MigrateStep } from "../../src/engine/memory/migrate";
import { bundleChild } from "../support/child-bundle";
import { machine, serve, work, type Machine } from "../support/engram-machine";
import { treeSnapshot, type TreeEntry } from "../support/tree";

const CONFIRM = ["migrate", "--confirm-quiescent"];

/** A Shell-provisioned store: identity, a database with its WAL, configuration; and its provenance record. */
async function provisioned(m: Machine): Promise<{ id: string; provenance: string }> {
  const id = createHash("md5").update(m.home).digest("hex");
  const store = join(m.home, ".engram");
  await fs.mkdir(join(store, "config"), { recursive: true });
  const db = Buffer.alloc(4096);
  db.write("SQLite format 3\0", 0, "latin1");
  db.writeUInt16BE(4096, 16);
  db[18] = 1;
  db[19] = 1;
  db.writeInt32BE(1, 60);
  await fs.writeFile(join(store, "engram.db"), db);
  await fs.writeFile(join(store, "engram.db-wal"), "wal frames not yet checkpointed\n");
  await fs.writeFile(join(store, "config", "settings.json"), '{"project":"mine"}\n');
  await fs.writeFile(join(store, ".instance-id"), `${id}\n`);
  // A record as an earlier Shell wrote it (test data: the old core's hash is a stand-in, kept byte for byte).
  const provenance = `${JSON.stringify({ store, instance_id: id, core: { version: "3.4.0", sha256: "e".repeat(64) } })}\n`;
  await fs.mkdir(m.layout.config, { recursive: true });
  await fs.writeFile(provenancePath(m.layout), provenance);
  return { id, provenance };
}

type Snapshot = { home: Record<string, TreeEntry>; provenance: string | null; marker: string | null };

/** The HOME (the prefix and the machine's own logs aside), the provenance record and the marker. */
async function snapshot(m: Machine): Promise<Snapshot> {
  const skip = [m.layout.prefix, join(m.home, "core-starts.log"), join(m.home, "core-pids.log"), join(m.home, "engram-runs.log")];
  return {
    home: await treeSnapshot(m.home, { skip }),
    provenance: await fs.readFile(provenancePath(m.layout), "utf8").catch(() => null),
    marker: await fs.readFile(join(m.layout.config, "engram-migration.json"), "utf8").catch(() => null),
  };
}

/** The entries of `tree` under `from` (a top-level name), renamed to `to`. */
function moved(tree: Record<string, TreeEntry>, from: string, to: string): Record<string, TreeEntry> {
  const out: Record<string, TreeEntry> = {};
  for (const [k, v] of Object.entries(tree)) if (k === from || k.startsWith(`${from}/`)) out[to + k.slice(from.length)] = v;
  return out;
}

/** The top-level names of a snapshot that start with `prefix`. */
function tops(tree: Record<string, TreeEntry>, prefix: string): string[] {
  return Object.keys(tree).filter((k) => !k.includes("/") && k.startsWith(prefix));
}

const MIGRATED: TreeEntry = {
  type: "file",
  mode: 0o644,
  sha256: createHash("sha256").update("migrated by the fixture migrate-copy 3.5.2\n").digest("hex"),
};

async function migrate(m: Machine, args = CONFIRM, env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await memoryMigrate(m.layout, { ...m.env, ...env }, args, { out: (l) => out.push(l), err: (l) => err.push(l) }, { endpoint: m.endpoint });
  return { code, out, err };
}

describe("refusals that change nothing", () => {
  it("without --confirm-quiescent: one sentence saying what to stop and back up first; the core is never run", async () => {
    const m = await machine();
    await provisioned(m);
    const before = await snapshot(m);
    const r = await migrate(m, ["migrate"]);
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(/stop every Engram client and server.*complete backup.*WAL.*--confirm-quiescent\.$/);
    expect(r.out).toEqual([]);
    expect(await m.starts()).toEqual([]);
    expect(await snapshot(m)).toEqual(before);
  });

  it("takes no other flag: a flag naming another store is refused, never adopted", async () => {
    const m = await machine();
    await provisioned(m);
    const before = await snapshot(m);
    const r = await migrate(m, ["migrate", "--confirm-quiescent", "--data-dir=/elsewhere"]);
    expect(r.code).toBe(2);
    expect(r.err).toEqual([expect.stringMatching(/takes only --confirm-quiescent .*"--data-dir=\/elsewhere"/)]);
    expect(await m.starts()).toEqual([]);
    expect(await snapshot(m)).toEqual(before);
  });

  it("an explicit ENGRAM_DATA_DIR or ENGRAM_URL is never adopted: refused by name, the value never shown", async () => {
    const m = await machine();
    await provisioned(m);
    const before = await snapshot(m);
    const foreign = join(work, "foreign-store");
    for (const env of [{ ENGRAM_DATA_DIR: foreign }, { ENGRAM_URL: "http://127.0.0.1:1/secret-path" }, { ENGRAM_DATABASE_URL: "postgres://u:p@h/db" }]) {
      const r = await migrate(m, CONFIRM, env);
      expect(r.code).toBe(1);
      expect(r.err).toEqual([expect.stringContaining(`never adopts another one, so it does nothing while ${Object.keys(env)[0]} is set`)]);
      expect(r.err[0]).not.toContain(Object.values(env)[0]!);
    }
    expect(existsSync(foreign)).toBe(false);
    expect(await m.starts()).toEqual([]);
    expect(await snapshot(m)).toEqual(before);
  });

  it("a core without migrate-copy: its help is read in an isolated home and the unknown command is never invoked", async () => {
    const m = await machine({ migrateCopy: false });
    await provisioned(m);
    const before = await snapshot(m);
    const log = join(m.home, "engram-runs.log");
    const r = await migrate(m, CONFIRM, { FIXTURE_ENGRAM_LOG: log, XDG_CONFIG_HOME: join(m.home, ".config") });
    expect(r.code).toBe(1);
    expect(r.err).toEqual([
      "gentle-shell: the bundled Engram 3.5.2 does not advertise migrate-copy in its help, so nothing was migrated and ~/.engram and its provenance are unchanged.",
    ]);
    const runs = (await fs.readFile(log, "utf8")).trim().split("\n");
    expect(runs).toHaveLength(1);
    const [, home, cwd] = /^--help home=(\S+) cwd=(\S+)$/.exec(runs[0]!)!;
    expect(home).toBe(cwd);
    expect(home!.startsWith(join(m.layout.tmp, "engram-help-"))).toBe(true);
    expect(existsSync(home!)).toBe(false);
    expect(await m.starts()).toEqual([`--help cwd=${home}`]);
    expect(await snapshot(m)).toEqual(before);
  });

  it("no verified core, no Shell provenance, no identity, or a listener on the endpoint: refused before the provider", async () => {
    const missing = await machine({ core: "missing" });
    await provisioned(missing);
    let before = await snapshot(missing);
    expect((await migrate(missing)).err).toEqual([expect.stringContaining("needs Gentle Shell's verified Engram core")]);
    expect(await snapshot(missing)).toEqual(before);

    const foreign = await machine();
    await provisioned(foreign);
    await fs.rm(provenancePath(foreign.layout));
    before = await snapshot(foreign);
    const r = await migrate(foreign);
    expect(r.code).toBe(1);
    expect(r.err).toEqual([expect.stringContaining("~/.engram was not provisioned by Gentle Shell")]);
    expect(await snapshot(foreign)).toEqual(before);

    const anonymous = await machine();
    await provisioned(anonymous);
    await fs.writeFile(join(anonymous.home, ".engram", ".instance-id"), "not-an-id\n");
    before = await snapshot(anonymous);
    expect((await migrate(anonymous)).err).toEqual([expect.stringContaining("identity cannot be established")]);
    expect(await snapshot(anonymous)).toEqual(before);

    const busy = await machine();
    await provisioned(busy);
    const server = await serve("ready");
    before = await snapshot(busy);
    const out: string[] = [];
    const code = await memoryMigrate(
      busy.layout,
      busy.env,
      CONFIRM,
      { out: (l) => out.push(l), err: (l) => out.push(l) },
      { endpoint: { host: "127.0.0.1", port: server.port } },
    );
    expect(code).toBe(1);
    expect(out).toEqual([expect.stringContaining(`something answers on 127.0.0.1:${server.port}`)]);
    for (const x of [missing, foreign, anonymous, busy]) expect(await x.starts()).toEqual([]);
    expect(await snapshot(busy)).toEqual(before);
  });
});

describe("success", () => {
  it("promotes the migrated copy, keeps the original as backup_dir, replaces the provenance and prints one JSON record", async () => {
    const m = await machine();
    const { id, provenance } = await provisioned(m);
    const before = await snapshot(m);
    const r = await migrate(m);
    expect(r.err).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(1);
    const record = JSON.parse(r.out[0]!);
    expect(Object.keys(record)).toEqual(["status", "instance_id", "backup_dir"]);
    expect(record.status).toBe("migrated");
    expect(record.instance_id).toBe(id);
    expect(record.backup_dir).toMatch(new RegExp(`^${m.home}/\\.engram\\.backup-[0-9a-f]{8}$`));
    const backupName = record.backup_dir.slice(m.home.length + 1);
    const after = await snapshot(m);
    // Exactly: the original under its backup name, byte for byte; the store is the copy, plus what migrating it added.
    expect(after.home).toEqual({
      ...moved(before.home, ".engram", backupName),
      ...before.home,
      ".engram/.fixture-migrated": MIGRATED,
    });
    expect(after.marker).toBeNull();
    const written = JSON.parse(after.provenance!);
    expect(after.provenance).not.toBe(provenance);
    expect(written).toMatchObject({ store: join(m.home, ".engram"), instance_id: id, core: { version: "3.5.2" }, migrated: { backup: record.backup_dir } });
    expect(written.core.sha256).toBe(
      createHash("sha256")
        .update(await fs.readFile(m.layout.engram))
        .digest("hex"),
    );
    expect(await m.starts()).toEqual([expect.stringMatching(/^--help cwd=/), `migrate-copy cwd=${m.home}`]);
  });
});

describe("a provider failure keeps the original and the provenance", () => {
  for (const [knob, left] of [
    ["fail-before-copy", "nothing"],
    ["fail-partial-copy", "half"],
    ["fail-migrate", "complete"],
    ["wrong-identity", "complete"],
    ["not-a-sibling", "complete"],
    ["backup-exists", "complete"],
    ["garbage", "complete"],
  ] as const) {
    it(`${knob}: no marker, ~/.engram and the record unchanged, what it left named and kept, never promoted`, async () => {
      const m = await machine();
      await provisioned(m);
      const before = await snapshot(m);
      const r = await migrate(m, CONFIRM, { FIXTURE_ENGRAM_MIGRATE: knob });
      expect(r.code).toBe(1);
      expect(r.out).toEqual([]);
      expect(r.err).toHaveLength(1);
      expect(r.err[0]).toContain("~/.engram and its provenance are unchanged");
      const after = await snapshot(m);
      expect(after.provenance).toBe(before.provenance);
      expect(after.marker).toBeNull();
      // The store itself, byte for byte.
      expect(moved(after.home, ".engram", ".engram")).toEqual(moved(before.home, ".engram", ".engram"));
      const copies = tops(after.home, ".engram.migrate-copy-");
      const backups = tops(after.home, ".engram.backup-");
      expect(backups).toEqual(knob === "backup-exists" ? [expect.stringMatching(/-taken$/)] : []);
      if (left === "nothing") {
        expect(copies).toEqual([]);
        expect(r.err[0]).not.toContain("kept for diagnosis");
        expect(after.home).toEqual(before.home);
        return;
      }
      expect(copies).toHaveLength(1);
      for (const name of [...copies, ...backups]) expect(r.err[0]).toContain(JSON.stringify(join(m.home, name)));
      expect(r.err[0]).toContain("kept for diagnosis, never promoted");
      const copy = moved(after.home, copies[0]!, ".engram");
      const original = moved(before.home, ".engram", ".engram");
      if (left === "half") expect(Object.keys(copy).length).toBeLessThan(Object.keys(original).length);
      else expect(Object.keys(copy).filter((k) => !(k in original))).toEqual(knob === "fail-migrate" ? [] : [".engram/.fixture-migrated"]);
      expect({ ...after.home }).toEqual({
        ...before.home,
        ...moved(after.home, copies[0]!, copies[0]!),
        ...(backups[0] ? { [backups[0]]: after.home[backups[0]]! } : {}),
      });
    });
  }
});

// --- kill -9 at each step boundary ------------------------------------------------------

const DRIVER = `
import { writeFileSync } from "node:fs";
import { prefixLayout } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { memoryMigrate } from "../../src/engine/memory/migrate";
const [home, port, stopAt, flag] = process.argv.slice(2) as [string, string, string, string];
const layout = prefixLayout({ home, platform: "linux", pins: productionPins });
const io = { out: (l: string) => process.stdout.write(l + "\\n"), err: (l: string) => process.stderr.write(l + "\\n") };
memoryMigrate(layout, process.env, ["migrate", "--confirm-quiescent"], io, {
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
      const launch = await engramLaunchEnvironment(m.layout, m.env, { phase: "pre-pi", args: [], endpoint: { host: "127.0.0.1", port: server.port } });
      expect(launch.decision.row).toBe("migration-marker");
      expect(launch.notice).toMatch(/engram-migration\.json.*run gentle-shell memory migrate to see what it records/);
      expect(launch.set).toEqual({ ENGRAM_BIN: m.layout.guard, ENGRAM_STARTUP_POLICY: "disabled" });
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
