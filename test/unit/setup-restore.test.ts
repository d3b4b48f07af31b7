/**
 * What setup puts back after Gentle AI ran (spec: "Launcher in a bundled
 * install", Personas): a file it rewrote, one it created, and one kept in a
 * dotfiles folder and reached through a link, whose target is restored
 * through the link, and the link itself put back if it was replaced.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { restore, snapshot } from "../../src/commands/setup";
import { has, requires } from "../support/capabilities";
import { underUmask, withMode } from "../support/modes";

let root: string;
beforeEach(() => {
  // Its real path: the product answers real paths, and a TMPDIR may be reached through a link (macOS: /var -> /private/var).
  root = realpathSync.native(mkdtempSync(join(tmpdir(), "gss-restore-")));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe("snapshot and restore", () => {
  it("restores a rewritten file, removes a created one, and leaves an unchanged one untouched", async () => {
    const [a, b, c] = ["a.json", "b.json", "c.json"].map((n) => join(root, n));
    await fs.writeFile(a!, "mine\n");
    await fs.writeFile(c!, "same\n");
    const before = await fs.stat(c!);
    const snaps = await snapshot([a!, b!, c!]);
    await fs.writeFile(a!, "rewritten");
    await fs.writeFile(b!, "created");
    expect(await restore(snaps)).toEqual([{ path: a }, { path: b }]);
    expect(await fs.readFile(a!, "utf8")).toBe("mine\n");
    await expect(fs.stat(b!)).rejects.toThrow();
    expect((await fs.stat(c!)).mtimeMs).toBe(before.mtimeMs);
  });

  it("restores a file rewritten through its link in the link's target, keeping the target's mode", async (ctx) => {
    requires(ctx, "symlinks");
    const target = join(root, "dotfiles", "persona.json");
    const link = join(root, "persona.json");
    await fs.mkdir(join(root, "dotfiles"));
    withMode(target, '{"mine":true}\n', 0o640);
    await fs.symlink(target, link);
    const snaps = await snapshot([link]);
    await fs.writeFile(link, '{"rewritten":true}');
    // Under umask 077 the restore must still give the target its own 0640: it sets the mode, the umask does not.
    expect(await underUmask(0o077, () => restore(snaps))).toEqual([{ path: link, via: target }]);
    expect(await fs.readlink(link)).toBe(target);
    expect(await fs.readFile(target, "utf8")).toBe('{"mine":true}\n');
    if (has("posix-modes")) expect((await fs.stat(target)).mode & 0o777).toBe(0o640);
  });

  it("puts the link back when the file was replaced instead of written through", async (ctx) => {
    requires(ctx, "symlinks");
    const target = join(root, "dotfiles", "persona.json");
    const link = join(root, "persona.json");
    await fs.mkdir(join(root, "dotfiles"));
    await fs.writeFile(target, '{"mine":true}\n');
    await fs.symlink("dotfiles/persona.json", link);
    const snaps = await snapshot([link]);
    await fs.rm(link);
    await fs.writeFile(link, '{"rewritten":true}');
    expect(await restore(snaps)).toEqual([{ path: link, via: target }]);
    expect(await fs.readlink(link)).toBe("dotfiles/persona.json");
    expect(await fs.readFile(link, "utf8")).toBe('{"mine":true}\n');
  });

  it("removes what was created through a dangling link, and keeps the link", async (ctx) => {
    requires(ctx, "symlinks");
    const link = join(root, "persona.json");
    await fs.symlink("missing/persona.json", link);
    await fs.mkdir(join(root, "missing"));
    const snaps = await snapshot([link]);
    await fs.writeFile(link, "created through the link");
    expect(await restore(snaps)).toEqual([{ path: link, via: join(root, "missing", "persona.json") }]);
    await expect(fs.stat(join(root, "missing", "persona.json"))).rejects.toThrow();
    expect(await fs.readlink(link)).toBe("missing/persona.json");
  });
});
