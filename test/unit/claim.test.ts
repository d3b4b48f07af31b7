/**
 * Claiming an existing prefix whole (install/claim.ts, issue 39, 1): entries
 * of another user's at any depth refuse the install and nothing is changed;
 * our own group- or other-writable entries are tightened; the prefix gets
 * the plan's 0700. And ensureRealFolder, the second line, refuses a folder
 * of another user's.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chownSync, mkdtempSync, promises as fs, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { prefixLayout, type Layout } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { claimPrefix, type EntryStat, nodePrefixFs, type PrefixFs } from "../../src/install/claim";
import { ensureRealFolder } from "../../src/io/files";
import { requires } from "../support/capabilities";

const OTHER = 12345;
let root: string;
let layout: Layout;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "gss-claim-"));
  layout = prefixLayout({ home: root, platform: "linux", pins: productionPins });
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** Make `rel` inside the prefix: a folder (trailing /) or a file, with `mode` exactly, and give it to `uid`. */
async function entry(rel: string, mode: number, uid?: number) {
  const path = join(layout.prefix, rel);
  if (rel.endsWith("/") || rel === "") await fs.mkdir(path, { recursive: true });
  else await fs.writeFile(path, "");
  await fs.chmod(path, mode);
  if (uid !== undefined) await fs.chown(path, uid, uid);
  return path;
}

async function facts(path: string) {
  const s = await fs.lstat(path);
  return { uid: s.uid, mode: s.mode & 0o7777 };
}

/** Everything below the prefix, with owner and mode, to compare before and after. */
async function picture(dir = layout.prefix): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await fs.readdir(dir)).sort()) {
    const path = join(dir, name);
    const s = await fs.lstat(path);
    out.push(`${path.slice(layout.prefix.length)} ${s.uid} ${(s.mode & 0o7777).toString(8)}`);
    if (s.isDirectory()) out.push(...(await picture(path)));
  }
  return out;
}

describe("claiming an existing prefix", () => {
  it("refuses the reproduction: another user's npm/ and npmrc in our 0777 prefix, naming npm/ and its owner, and changes nothing", async (ctx) => {
    requires(ctx, "owners", "posix-modes");
    await entry("", 0o777);
    await entry("npm/", 0o777, OTHER);
    await entry("npm/npmrc", 0o666, OTHER);
    const before = await picture();
    await expect(claimPrefix(layout)).rejects.toThrow(
      "~/.gentle-shell/npm belongs to another user (uid 12345), so Gentle Shell cannot trust it and nothing was changed; remove it (as that user, or with sudo) and run the installer again.",
    );
    expect(await picture()).toEqual(before);
    expect(await facts(layout.prefix)).toMatchObject({ mode: 0o777 });
  });

  it("finds an entry of another user's at any depth, below folders that are not open to anyone now", async (ctx) => {
    requires(ctx, "owners", "posix-modes");
    await entry("", 0o700);
    await entry("versions/4.0.0-1.6.0/node_modules/gentle-pi/", 0o755);
    await entry("versions/4.0.0-1.6.0/node_modules/gentle-pi/index.js", 0o644, OTHER);
    await entry("runtime/", 0o777);
    await expect(claimPrefix(layout)).rejects.toThrow(
      /^~\/\.gentle-shell\/versions\/4\.0\.0-1\.6\.0\/node_modules\/gentle-pi\/index\.js belongs to another user \(uid 12345\)/,
    );
    expect(await facts(join(layout.prefix, "runtime"))).toMatchObject({ mode: 0o777 });
  });

  it("refuses another user's file in the agent home and another user's link, and counts the others", async (ctx) => {
    requires(ctx, "owners", "symlinks");
    await entry("agent/extensions/", 0o755);
    await entry("agent/extensions/x.ts", 0o644, OTHER);
    await fs.symlink("/tmp", join(layout.prefix, "current"));
    await fs.lchown(join(layout.prefix, "current"), OTHER, OTHER);
    await expect(claimPrefix(layout)).rejects.toThrow(
      /^~\/\.gentle-shell\/current belongs to another user \(uid 12345\) \(1 more entry of the Gentle Shell folder too\)/,
    );
  });

  it("tightens our own group-writable entries (umask 002) and sets the prefix to 0700; the agent home's contents keep their modes", async (ctx) => {
    requires(ctx, "posix-modes", "symlinks");
    await entry("", 0o775);
    await entry("npm/", 0o775);
    await entry("npm/npmrc", 0o664);
    await entry("config/", 0o2777);
    await entry("bin/", 0o775);
    await entry("bin/gentle-shell", 0o775);
    await entry("agent/", 0o775);
    await entry("agent/settings.json", 0o664);
    await fs.symlink("versions/x", join(layout.prefix, "current"));
    expect(await claimPrefix(layout)).toBe("already there; mode 0700 set, group/other write access removed from 6 entries inside");
    expect((await facts(layout.prefix)).mode).toBe(0o700);
    expect((await facts(join(layout.prefix, "npm"))).mode).toBe(0o755);
    expect((await facts(join(layout.prefix, "npm", "npmrc"))).mode).toBe(0o644);
    expect((await facts(join(layout.prefix, "config"))).mode).toBe(0o755);
    expect((await facts(join(layout.prefix, "bin"))).mode).toBe(0o755);
    expect((await facts(join(layout.prefix, "bin", "gentle-shell"))).mode).toBe(0o755);
    expect((await facts(layout.agent)).mode).toBe(0o755);
    expect((await facts(join(layout.agent, "settings.json"))).mode).toBe(0o664);
    expect(await fs.readlink(join(layout.prefix, "current"))).toBe("versions/x");
    // A second claim finds nothing left to change.
    expect(await claimPrefix(layout)).toBe("already there");
  });

  it("sets an existing 0755 prefix to 0700, the mode the plan prints", async (ctx) => {
    requires(ctx, "posix-modes");
    await entry("", 0o755);
    await entry("agent/", 0o700);
    expect(await claimPrefix(layout)).toBe("already there; mode 0700 set");
    expect((await facts(layout.prefix)).mode).toBe(0o700);
  });

  it("refuses an entry another user slips into an open folder while the prefix is looked at, and changes only the prefix's mode", async (ctx) => {
    requires(ctx, "owners", "posix-modes");
    await entry("", 0o777);
    const npm = await entry("npm/", 0o777);
    let slipped = false;
    // The other user writes into npm/ right after the survey, before the prefix is closed.
    const racing: PrefixFs = {
      ...nodePrefixFs,
      tighten(path: string, expected: EntryStat, mode: number) {
        if (!slipped) {
          slipped = true;
          writeFileSync(join(npm, "npmrc"), "script-shell=/tmp/evil\n");
          chownSync(join(npm, "npmrc"), OTHER, OTHER);
        }
        nodePrefixFs.tighten(path, expected, mode);
      },
    };
    await expect(claimPrefix(layout, { fs: racing })).rejects.toThrow(
      "~/.gentle-shell/npm/npmrc belongs to another user (uid 12345), so Gentle Shell cannot trust it and only the Gentle Shell folder's mode was changed (to 0700); remove it",
    );
    expect((await facts(npm)).mode).toBe(0o777);
  });

  it("refuses a name that is not UTF-8, which it could not look at", async (ctx) => {
    requires(ctx, "posix-modes");
    await entry("npm/", 0o700);
    const odd = Buffer.concat([Buffer.from(join(layout.prefix, "npm") + "/"), Buffer.from([0xff, 0x41])]);
    await fs.writeFile(odd, "");
    try {
      await expect(claimPrefix(layout)).rejects.toThrow("~/.gentle-shell/npm holds an entry whose name is not UTF-8");
    } finally {
      await fs.rm(odd);
    }
  });

  it("without POSIX owners (Windows' facts) refuses only a link at the prefix, and changes no mode", async () => {
    const calls: string[] = [];
    const stat = (kind: EntryStat["kind"], uid: number, mode: number): EntryStat => ({ kind, uid, mode, dev: 1, ino: calls.length });
    const tree: Record<string, EntryStat> = {
      [layout.prefix]: stat("folder", 0, 0o040777),
      [join(layout.prefix, "npm")]: stat("folder", 12345, 0o040777),
      [join(layout.prefix, "npm", "npmrc")]: stat("file", 12345, 0o100666),
      [layout.agent]: stat("folder", 0, 0o040777),
    };
    const model: PrefixFs = {
      lstat: (path) => tree[path] ?? null,
      readdir: (path) =>
        Object.keys(tree).flatMap((p) => (p.startsWith(`${path}/`) && !p.slice(path.length + 1).includes("/") ? [p.slice(path.length + 1)] : [])),
      tighten: (path) => void calls.push(`tighten ${path}`),
      mkdir: (path) => void calls.push(`mkdir ${path}`),
    };
    expect(await claimPrefix(layout, { fs: model, self: null })).toBe("already there");
    expect(calls).toEqual([]);
    tree[layout.prefix] = stat("link", 0, 0o120777);
    await expect(claimPrefix(layout, { fs: model, self: null })).rejects.toThrow("~/.gentle-shell is a link; it must be a real folder.");
    expect(calls).toEqual([]);
  });
});

describe("ensureRealFolder", () => {
  it("refuses a folder of another user's, and leaves it as it was", async (ctx) => {
    requires(ctx, "owners");
    const dir = join(root, "npm");
    await fs.mkdir(dir, { mode: 0o777 });
    await fs.chown(dir, OTHER, OTHER);
    await expect(ensureRealFolder(dir)).rejects.toThrow(`${dir} is not a folder of Gentle Shell's (it belongs to another user, uid 12345); it was left alone`);
    expect((await fs.lstat(dir)).uid).toBe(OTHER);
    await fs.chown(dir, process.getuid!(), process.getgid!());
    expect(await ensureRealFolder(dir)).toBe("present");
  });
});
