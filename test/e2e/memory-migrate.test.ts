/**
 * `gentle-shell memory migrate` through the installed launcher (spec:
 * "Explicit recovery after a core upgrade"): the engine's own command, never
 * a prompt for Pi, run with the verified core the install's setup published
 * (the fixture Engram, which implements migrate-copy). The endpoint check of
 * the command looks at Engram's own 127.0.0.1:7437, so the migration runs in
 * a network namespace of its own (unshare -n) where nothing listens.
 * The module's every refusal, failure and interruption:
 * integration/engram-migrate.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { GENTLE_PI_MARKER } from "../support/gentle-pi";
import { installed, type Installed } from "../support/installed";
import { runCommand } from "../support/proc";
import { treeSnapshot } from "../support/tree";

const f = fixtures();
const ID = "5f0c3a9e1b7d4e2f8a6c0b1d3e5f7a9c";

let i: Installed;
beforeAll(async () => {
  i = await installed(f);
  expect(existsSync(join(i.prefix, "runtime", "engram-3.5.2", "engram")), i.output).toBe(true);
  const store = join(i.home, ".engram");
  await fs.mkdir(store, { recursive: true });
  await fs.writeFile(join(store, ".instance-id"), `${ID}\n`);
  await fs.writeFile(join(store, "engram.db"), "a store an earlier Shell provisioned\n");
  await fs.writeFile(join(store, "engram.db-wal"), "its WAL\n");
  await fs.mkdir(join(i.prefix, "config"), { recursive: true });
  await fs.writeFile(join(i.prefix, "config", "engram-provenance.json"), `${JSON.stringify({ instance_id: ID, core: { sha256: "e".repeat(64) } })}\n`);
});

/** The home (the prefix aside) and whether Pi ran (gentle-pi's fixture records each load). */
async function picture() {
  return {
    home: await treeSnapshot(i.home, { skip: [i.prefix] }),
    piRan: existsSync(join(i.prefix, "agent", GENTLE_PI_MARKER)),
  };
}

describe("memory migrate through the launcher", () => {
  it("without --confirm-quiescent: refused in one sentence, Pi never started, nothing changed", async () => {
    const before = await picture();
    const r = await runCommand(i.gs, ["memory", "migrate"], { env: { ...i.env, PI_OFFLINE: "1" }, cwd: i.home });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^gentle-shell: memory migrate changes ~\/\.engram: first stop every Engram client/)]);
    expect(await picture()).toEqual(before);
  });

  it("with it: one JSON record, the original kept as backup_dir, the migrated copy in ~/.engram", async () => {
    const before = await picture();
    const r = await runCommand("unshare", ["-n", "bash", "-c", 'ip link set lo up; exec "$GS" memory migrate --confirm-quiescent'], {
      env: { ...i.env, GS: i.gs, PATH: process.env.PATH, PI_OFFLINE: "1" },
      cwd: i.home,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!);
    expect(record).toEqual({ status: "migrated", instance_id: ID, backup_dir: expect.stringMatching(/\/\.engram\.backup-[0-9a-f]{8}$/) });
    const after = await picture();
    expect(after.piRan).toBe(before.piRan);
    const backup = record.backup_dir.slice(i.home.length + 1);
    const expected: typeof before.home = { ...before.home };
    for (const [k, v] of Object.entries(before.home)) if (k === ".engram" || k.startsWith(".engram/")) expected[backup + k.slice(".engram".length)] = v;
    expect(Object.keys(after.home).sort()).toEqual([...Object.keys(expected), ".engram/.fixture-migrated"].sort());
    for (const [k, v] of Object.entries(expected)) expect(after.home[k], k).toEqual(v);
    expect(existsSync(join(i.prefix, "config", "engram-migration.json"))).toBe(false);
    const provenance = JSON.parse(await fs.readFile(join(i.prefix, "config", "engram-provenance.json"), "utf8"));
    expect(provenance).toMatchObject({ instance_id: ID, core: { version: "3.5.2" }, migrated: { backup: record.backup_dir } });
  });
});
