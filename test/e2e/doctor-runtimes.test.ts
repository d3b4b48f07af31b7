/**
 * `doctor` and each runtime's files (issue 41) on real installs by the
 * fixture binary: the install records every file it extracted from a
 * runtime's pinned archive (.gentle-shell-files), and doctor compares the
 * folder with that record. One byte of Node's executable changed: doctor
 * names it and exits 1, `--fix` downloads Node again (checked against its
 * pin), status is healthy, the prefix and HOME differ from the broken ones
 * in exactly that file and are the healthy ones again, and a second `--fix`
 * changes nothing. A runtime published before records existed is checked
 * for presence only, ok, and `--fix` downloads nothing for it.
 *
 * The runtime files of a copied install are hard links into the run's
 * shared install (test/support/installed.ts), so a break here replaces a
 * file (or unlinks it), never writes into it.
 */
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { fixtures } from "../support/context";
import { installed, type Installed } from "../support/installed";
import { runCommand } from "../support/proc";
import { onlyDocument, schemaErrors } from "../support/result-schema";
import { treeSnapshot } from "../support/tree";
import { RECORDED_LINE } from "../../src/install/runtime/file-record";

const f = fixtures();
const NODE = `node-${f.pins.node.version}`;

function run(i: Installed, command: string, args: string[]) {
  return runCommand(command, args, { env: { ...i.env, ENGRAM_STARTUP_POLICY: "disabled" }, cwd: i.home });
}

/** One byte of `path` changed, in a new file put in its place with one rename (the old one may be shared). */
async function changeOneByte(path: string, at: number): Promise<void> {
  const bytes = await fs.readFile(path);
  const mode = (await fs.stat(path)).mode & 0o7777;
  bytes[at] = bytes[at]! ^ 0xff;
  const next = `${path}.next`;
  await fs.writeFile(next, bytes);
  await fs.chmod(next, mode);
  await fs.rename(next, path);
}

/** The entries two snapshots disagree on. */
function changed(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
}

describe("doctor and each runtime's files", () => {
  it("a byte of Node changed: named, --fix downloads Node again, status is healthy, only that file changed, and a second --fix changes nothing", async () => {
    const i = await installed(f);
    const healthy = await treeSnapshot(i.root);
    const node = join(i.prefix, "runtime", NODE, "bin", "node");
    const size = (await fs.stat(node)).size;
    await changeOneByte(node, Math.floor(size / 2));
    const broken = await treeSnapshot(i.root);
    expect(changed(healthy, broken)).toEqual([`home/.gentle-shell/runtime/${NODE}/bin/node`]);

    const told = await run(i, f.binary!, ["doctor"]);
    expect(told.code, told.stdout + told.stderr).toBe(1);
    expect(told.stdout).toContain(
      `  broken node ${f.pins.node.version} differs from its pinned archive: bin/node has other bytes (runtime/${NODE})\n` +
        "         fix: gentle-shell-setup doctor --fix downloads it again from the install's source (or --source), checked against its pin",
    );
    // The other runtimes are checked file by file too, and are as published.
    expect(told.stdout).toMatch(
      new RegExp(`  ok     pnpm ${f.pins.pnpm.version} \\(runtime/pnpm-${f.pins.pnpm.version}\\), \\d+ files as extracted from its pinned archive\\n`),
    );
    const json = await run(i, f.binary!, ["doctor", "--json"]);
    const doc = onlyDocument(json.stdout);
    expect(schemaErrors(doc)).toEqual([]);
    expect(doc).toMatchObject({ command: "doctor", ok: false, exitCode: 1, doctor: { healthy: false } });
    expect(await treeSnapshot(i.root)).toEqual(broken);

    const fixed = await run(i, f.binary!, ["doctor", "--fix"]);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(fixed.stdout.split("\n").filter((l) => l.startsWith("repaired: ") || l.startsWith("could not repair: "))).toEqual([
      `repaired: downloaded node again into ~/.gentle-shell/runtime/${NODE}, checked against its pin`,
    ]);
    expect(fixed.stdout).toMatch(new RegExp(`  ok     node ${f.pins.node.version} \\(runtime/${NODE}\\), \\d+ files as extracted from its pinned archive\\n`));
    const status = await run(i, i.gs, ["status", "--no-memory"]);
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Gentle Shell in ~\/\.gentle-shell: healthy\n/);
    // Exactly the repair: the one changed file differs from the broken tree, and the tree is the healthy one again.
    const repaired = await treeSnapshot(i.root);
    expect(changed(broken, repaired)).toEqual([`home/.gentle-shell/runtime/${NODE}/bin/node`]);
    expect(repaired).toEqual(healthy);

    const again = await run(i, f.binary!, ["doctor", "--fix"]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).not.toContain("repaired: ");
    expect(await treeSnapshot(i.root)).toEqual(healthy);
  });

  it("a runtime published before file records: its files checked for presence only, ok, and --fix downloads nothing for it", async () => {
    const i = await installed(f);
    await fs.rm(join(i.prefix, "runtime", NODE, ".gentle-shell-files"));
    // An earlier gentle-shell-setup's marker: no line saying a record was written.
    const marker = join(i.prefix, "runtime", NODE, ".gentle-shell-runtime");
    const text = await fs.readFile(marker, "utf8");
    expect(text).toContain(`${RECORDED_LINE}\n`);
    // Replaced, never written through: the install's files are hard links of a shared template.
    await fs.rm(marker);
    await fs.writeFile(marker, text.replace(`${RECORDED_LINE}\n`, ""));
    const before = await treeSnapshot(i.root);
    const told = await run(i, f.binary!, ["doctor", "--fix"]);
    expect(told.code, told.stdout + told.stderr).toBe(0);
    expect(told.stdout).toContain(
      `  ok     node ${f.pins.node.version} (runtime/${NODE}), files checked for presence only: it was installed before gentle-shell-setup recorded them\n`,
    );
    expect(told.stdout).not.toContain("repaired: ");
    expect(await treeSnapshot(i.root)).toEqual(before);
  });

  it("a record deleted from a folder whose marker says one was written: a warning, not ok, and --fix downloads it again", async () => {
    const i = await installed(f);
    await fs.rm(join(i.prefix, "runtime", NODE, ".gentle-shell-files"));
    const told = await run(i, f.binary!, ["doctor"]);
    expect(told.code, told.stdout + told.stderr).toBe(0);
    expect(told.stdout).toContain(
      `  warn   node ${f.pins.node.version} has lost its file record .gentle-shell-files, so its files cannot be checked (runtime/${NODE})\n`,
    );
    const fixed = await run(i, f.binary!, ["doctor", "--fix"]);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(fixed.stdout).toContain(`repaired: downloaded node again into ~/.gentle-shell/runtime/${NODE}, checked against its pin`);
    const again = await run(i, f.binary!, ["doctor"]);
    expect(again.stdout).toMatch(new RegExp(`  ok     node ${f.pins.node.version} \\(runtime/${NODE}\\), \\d+ files as extracted from its pinned archive`));
  });
});
