/**
 * The memory migrate tests' stores (integration/engram-migrate*.test.ts): a
 * Shell-provisioned ~/.engram with its provenance record on a machine of
 * ./engram-machine.ts, byte-exact snapshots of the HOME (~/.engram and
 * everything beside it, the prefix and the machine's logs aside), the
 * provenance and the marker, and the module run in process.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { memoryMigrate, provenancePath } from "../../src/commands/memory/migrate";
import type { Machine } from "./engram-machine";
import { treeSnapshot, type TreeEntry } from "./tree";

export const CONFIRM = ["migrate", "--confirm-quiescent"];

/** A Shell-provisioned store: identity, a database with its WAL, configuration; and its provenance record. */
export async function provisioned(m: Machine): Promise<{ id: string; provenance: string }> {
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

export type Snapshot = { home: Record<string, TreeEntry>; provenance: string | null; marker: string | null };

/** The HOME (the prefix and the machine's own logs aside), the provenance record and the marker. */
export async function snapshot(m: Machine): Promise<Snapshot> {
  const skip = [m.layout.prefix, join(m.home, "core-starts.log"), join(m.home, "core-pids.log"), join(m.home, "engram-runs.log")];
  return {
    home: await treeSnapshot(m.home, { skip }),
    provenance: await fs.readFile(provenancePath(m.layout), "utf8").catch(() => null),
    marker: await fs.readFile(join(m.layout.config, "engram-migration.json"), "utf8").catch(() => null),
  };
}

/** The entries of `tree` under `from` (a top-level name), renamed to `to`. */
export function moved(tree: Record<string, TreeEntry>, from: string, to: string): Record<string, TreeEntry> {
  const out: Record<string, TreeEntry> = {};
  for (const [k, v] of Object.entries(tree)) if (k === from || k.startsWith(`${from}/`)) out[to + k.slice(from.length)] = v;
  return out;
}

/** The top-level names of a snapshot that start with `prefix`. */
export function tops(tree: Record<string, TreeEntry>, prefix: string): string[] {
  return Object.keys(tree).filter((k) => !k.includes("/") && k.startsWith(prefix));
}

export const MIGRATED: TreeEntry = {
  type: "file",
  mode: 0o644,
  sha256: createHash("sha256").update("migrated by the fixture migrate-copy 3.5.2\n").digest("hex"),
};

export async function migrate(m: Machine, args = CONFIRM, env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await memoryMigrate(m.layout, args, { env: { ...m.env, ...env }, out: (l) => out.push(l), err: (l) => err.push(l) }, { endpoint: m.endpoint });
  return { code, out, err };
}
