/**
 * `gentle-shell memory migrate --confirm-quiescent` (spec: "Explicit recovery
 * after a core upgrade", "Recovering an interrupted migration"), through the
 * engine's module with a machine's layout and the real fixture `engram`
 * (support/engram.ts: a core with migrate-copy and one without, failure knobs
 * at each provider step). Every test snapshots the scratch HOME (~/.engram and
 * everything beside it, the prefix aside) and the provenance record before and
 * after, and asserts exactly what changed (support/engram-store.ts). The kills
 * at each step boundary: engram-migrate-kill.test.ts.
 */
import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { memoryMigrate, provenancePath } from "../../src/commands/memory/migrate";
import { machine, serve, work } from "../support/engram-machine";
import { CONFIRM, MIGRATED, migrate, moved, provisioned, snapshot, tops } from "../support/engram-store";

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
      CONFIRM,
      { env: busy.env, out: (l) => out.push(l), err: (l) => out.push(l) },
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

describe("from the agent's shell", () => {
  it("the outer Shell's guard and URL are not a foreign selection; a marker is explained even without the flag", async () => {
    const m = await machine();
    const { id } = await provisioned(m);
    const outer = { ENGRAM_BIN: m.layout.guard, ENGRAM_URL: `http://127.0.0.1:${m.endpoint.port}`, ENGRAM_STARTUP_POLICY: "allowed" };
    const r = await migrate(m, CONFIRM, outer);
    expect(r.err).toEqual([]);
    expect(JSON.parse(r.out[0]!)).toMatchObject({ status: "migrated", instance_id: id });
    // A marker (here: a folder at its path) is reported before the flag is even looked at, and nothing changes.
    await fs.mkdir(join(m.layout.config, "engram-migration.json"));
    const before = await snapshot(m);
    const again = await migrate(m, ["migrate"], outer);
    expect(again.code).toBe(1);
    expect(again.err).toContain("(not a regular file: a folder)");
    expect(again.err.at(-1)).toMatch(/ask for recovery assistance rather than guessing/);
    expect(await snapshot(m)).toEqual(before);
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

describe("what the provider cannot see, Shell checks", () => {
  it("a store that changed while migrate-copy ran (another writer): nothing promoted, the copy kept, no marker", async () => {
    const m = await machine();
    await provisioned(m);
    const before = await snapshot(m);
    const r = await migrate(m, CONFIRM, { FIXTURE_ENGRAM_MIGRATE: "writer-active" });
    expect(r.code).toBe(1);
    expect(r.err).toEqual([expect.stringMatching(/~\/\.engram changed while .* another Engram client or server may still be using it; nothing was promoted/)]);
    const after = await snapshot(m);
    expect(after.marker).toBeNull();
    expect(after.provenance).toBe(before.provenance);
    const [copy] = tops(after.home, ".engram.migrate-copy-");
    expect(r.err[0]).toContain(JSON.stringify(join(m.home, copy!)));
    // Only the other writer's change, in the store itself.
    const changed = Object.keys(after.home).filter((k) => !k.startsWith(copy!) && JSON.stringify(after.home[k]) !== JSON.stringify(before.home[k]));
    expect(changed).toEqual([".engram/engram.db-wal"]);
  });

  it("a step of Shell's own that fails after the marker: the marker stays and says what was done", async () => {
    const m = await machine();
    const { provenance } = await provisioned(m);
    const before = await snapshot(m);
    const err: string[] = [];
    let backup = "";
    const code = await memoryMigrate(
      m.layout,
      CONFIRM,
      { env: m.env, out: () => undefined, err: (l) => err.push(l) },
      {
        endpoint: m.endpoint,
        onStep: async (step) => {
          if (step !== "marker-written") return;
          // Something takes the backup name between the check and the rename (a folder with content: rename cannot replace it).
          backup = JSON.parse(await fs.readFile(join(m.layout.config, "engram-migration.json"), "utf8")).backup;
          await fs.mkdir(join(backup, "taken"), { recursive: true });
        },
      },
    );
    expect(code).toBe(1);
    expect(err).toEqual([expect.stringMatching(/stopped while it renamed .*\.engram to .*engram-migration\.json records what was done/)]);
    const after = await snapshot(m);
    expect(JSON.parse(after.marker!).originalProvenance).toBe(provenance);
    expect(after.provenance).toBe(provenance);
    expect(moved(after.home, ".engram", ".engram")).toEqual(moved(before.home, ".engram", ".engram"));
    expect(tops(after.home, ".engram.backup-")).toEqual([backup.slice(m.home.length + 1)]);
    const again = await migrate(m);
    expect(again.code).toBe(1);
    expect(again.err[0]).toContain("an interrupted memory migration is recorded in");
    expect(await snapshot(m)).toEqual(after);
  });
});
