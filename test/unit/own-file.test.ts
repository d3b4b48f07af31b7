/**
 * Reading a file of its own where the open cannot refuse a link (Windows:
 * O_NOFOLLOW is 0 there). core/own-file.ts decides from the descriptor's
 * fstat and the path's lstat after the open; io/safe-fs.ts's openOwnFile and
 * openOwnFileSync apply it under the platform they are given, so the win32
 * rule runs here on Linux's real file system, where an open without
 * O_NOFOLLOW follows a link as Windows' does.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as nodeFs from "node:fs";
import { mkdtempSync, promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { ownFileProblem, type FileIdentity } from "../../src/core/own-file";
import { prefixLayout } from "../../src/core/layout";
import { readEngramHeader } from "../../src/installed/engram/probe";
import { PrivateInstallError, readPiPackage } from "../../src/installed/private-install";
import { openSourceFile } from "../../src/io/own-dir";
import { openOwnFile, openOwnFileSync, OwnFileError, readOwnFlags } from "../../src/io/safe-fs";
import { receiptJson } from "../../src/path/receipt";
import { readPathReceipt } from "../../src/path/receipt-file";
import type { PathFs } from "../../src/path/fs";
import { USER_PATH_KEY, USER_PATH_NAME } from "../../src/path/shells";
import { userPathEntry } from "../../src/path/user-path";
import { productionPins } from "../../src/pins/production";
import { requires } from "../support/capabilities";

const stat = (kind: "file" | "link" | "folder", dev: bigint | number, ino: bigint | number): FileIdentity => ({
  isFile: () => kind === "file",
  isSymbolicLink: () => kind === "link",
  dev,
  ino,
});

describe("ownFileProblem", () => {
  const file = stat("file", 7n, 2n ** 60n + 1n);

  it("on win32: the path must still be that very file, not a link, after the open", () => {
    expect(ownFileProblem("win32", file, stat("file", 7n, 2n ** 60n + 1n))).toBeNull();
    expect(ownFileProblem("win32", file, stat("link", 7n, 99n))).toBe("link");
    expect(ownFileProblem("win32", file, stat("file", 7n, 2n ** 60n))).toBe("replaced");
    expect(ownFileProblem("win32", file, stat("file", 8n, 2n ** 60n + 1n))).toBe("replaced");
    expect(ownFileProblem("win32", file, stat("folder", 7n, 2n ** 60n + 1n))).toBe("replaced");
    expect(ownFileProblem("win32", file, null)).toBe("replaced");
    expect(ownFileProblem("win32", stat("folder", 7n, 1n), stat("folder", 7n, 1n))).toBe("not-a-file");
  });

  it("compares Windows' 64-bit file ids exactly: ids a double cannot tell apart are still two files", () => {
    // 2^60 and 2^60 + 1 are the same double.
    expect(Number(2n ** 60n) === Number(2n ** 60n + 1n)).toBe(true);
    expect(ownFileProblem("win32", file, stat("file", 7, 2n ** 60n))).toBe("replaced");
  });

  it("elsewhere the open refused a link already (O_NOFOLLOW): only the kind of file is checked", () => {
    for (const platform of ["linux", "darwin"]) {
      expect(ownFileProblem(platform, file, null)).toBeNull();
      expect(ownFileProblem(platform, stat("folder", 1n, 1n), null)).toBe("not-a-file");
    }
  });
});

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "gss-own-file-")));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** A regular file, and a link to another regular file beside it. */
async function fileAndLink() {
  const real = join(root, "real.json");
  const elsewhere = join(root, "elsewhere.json");
  const link = join(root, "link.json");
  await fs.writeFile(real, '{"mine":true}');
  await fs.writeFile(elsewhere, '{"theirs":true}');
  await fs.symlink(elsewhere, link);
  return { real, elsewhere, link };
}

describe("openOwnFileSync and openOwnFile under win32's rule", () => {
  it("opens without O_NOFOLLOW there (Windows has none), and with it elsewhere", () => {
    expect(readOwnFlags("win32") & (nodeFs.constants.O_NOFOLLOW ?? 0)).toBe(0);
    // This Node's own O_NOFOLLOW, where it has one (Windows Node has none to check the POSIX rule with).
    const nofollow = nodeFs.constants.O_NOFOLLOW;
    if (nofollow !== undefined) expect(readOwnFlags("linux") & nofollow).toBe(nofollow);
  });

  it("reads a regular file, and refuses a link the open followed, closing what it opened", async (ctx) => {
    requires(ctx, "symlinks");
    const { real, link } = await fileAndLink();
    const fd = openOwnFileSync(real, { platform: "win32" });
    expect(nodeFs.readFileSync(fd, "utf8")).toBe('{"mine":true}');
    nodeFs.closeSync(fd);
    const closed: number[] = [];
    const counting = {
      ...nodeFs,
      closeSync: (n: number) => {
        closed.push(n);
        nodeFs.closeSync(n);
      },
    };
    const error = (() => {
      try {
        openOwnFileSync(link, { platform: "win32", fs: counting });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(OwnFileError);
    expect(error).toMatchObject({ code: "ELOOP", problem: "link" });
    expect(closed).toHaveLength(1);
    await expect(openOwnFile(link, { platform: "win32" })).rejects.toMatchObject({ code: "ELOOP", problem: "link" });
    const handle = await openOwnFile(real, { platform: "win32" });
    expect(await handle.readFile("utf8")).toBe('{"mine":true}');
    await handle.close();
  });

  it("refuses a file swapped for another between the open and the look at the path", async (ctx) => {
    requires(ctx, "symlinks", "replace-open-files");
    const { real, elsewhere } = await fileAndLink();
    // The open lands on `real`; the path then holds another file (a rename over it).
    const swapping = {
      ...nodeFs,
      openSync: ((p: string, flags: number) => {
        const fd = nodeFs.openSync(p, flags);
        nodeFs.renameSync(elsewhere, p);
        return fd;
      }) as typeof nodeFs.openSync,
    };
    expect(() => openOwnFileSync(real, { platform: "win32", fs: swapping })).toThrow(expect.objectContaining({ code: "ELOOP", problem: "replaced" }));
  });

  it("refuses what is not a regular file, on every platform", async () => {
    await fs.mkdir(join(root, "folder"));
    for (const platform of ["win32", "linux"]) {
      await expect(openOwnFile(join(root, "folder"), { platform })).rejects.toMatchObject({ code: "EFTYPE", problem: "not-a-file" });
    }
  });
});

describe("the reads that relied on O_NOFOLLOW, under win32's rule", () => {
  it("path-entry.json turned into a link after its lstat is invalid, never read through (an open that follows, as Windows')", async (ctx) => {
    requires(ctx, "symlinks");
    const home = join(root, "home");
    const layout = prefixLayout({ home, platform: "win32", pins: productionPins, windowsPrefix: join(home, "AppData", "Local", "gentle-shell") });
    await fs.mkdir(layout.prefix, { recursive: true });
    const receipt = receiptJson({ schema: 1, kind: "registry", applied: true, key: USER_PATH_KEY, name: USER_PATH_NAME, entry: userPathEntry(layout.bin) });
    await fs.writeFile(layout.pathReceipt, receipt);
    const env = { USERPROFILE: home };
    expect(readPathReceipt(layout, env)).toMatchObject({ status: "valid" });
    // Windows' open: O_NOFOLLOW is 0 there, so whatever flags are asked for, a link is followed.
    const theirs = join(root, "theirs.json");
    await fs.writeFile(theirs, receipt);
    const windowsLike = {
      ...nodeFs,
      openSync: ((p: string, flags: number, mode?: number) => {
        if (p === layout.pathReceipt) {
          nodeFs.rmSync(p);
          nodeFs.symlinkSync(theirs, p);
        }
        return nodeFs.openSync(p, flags & ~nodeFs.constants.O_NOFOLLOW, mode);
      }) as typeof nodeFs.openSync,
    } as PathFs;
    expect(readPathReceipt(layout, env, { fs: windowsLike })).toEqual({
      status: "invalid",
      reason: "path-entry.json is a link or not a file",
      manual: null,
    });
  });

  it("Pi's package.json, a folder source's file and Engram's header: a link is refused, a regular file is read", async (ctx) => {
    requires(ctx, "symlinks");
    // Pi's package.json inside the version folder.
    const version = join(root, "versions", "4.1.0-1.6.0");
    const pi = join(version, "node_modules", "pi");
    await fs.mkdir(pi, { recursive: true });
    await fs.writeFile(join(root, "pi-package.json"), '{"version":"1.6.0"}');
    await fs.symlink(join(root, "pi-package.json"), join(pi, "package.json"));
    await expect(readPiPackage(pi, version, "4.1.0-1.6.0", "win32")).rejects.toThrow(
      new PrivateInstallError("Pi's package.json in versions/4.1.0-1.6.0 is a link, not a file"),
    );
    await fs.rm(join(pi, "package.json"));
    await fs.writeFile(join(pi, "package.json"), '{"version":"1.6.0"}');
    expect(await readPiPackage(pi, version, "4.1.0-1.6.0", "win32")).toEqual({ version: "1.6.0" });
    // A folder source's file.
    const { real, link } = await fileAndLink();
    await expect(openSourceFile(root, link, "the manifest", 1024, "win32")).rejects.toThrow(
      `the manifest in ${root} is a link; a folder source is read without following links`,
    );
    const handle = await openSourceFile(root, real, "the manifest", 1024, "win32");
    expect(await handle.readFile("utf8")).toBe('{"mine":true}');
    await handle.close();
    // Engram's header.
    await fs.mkdir(join(root, ".engram"));
    await fs.symlink(real, join(root, ".engram", "engram.db"));
    expect(await readEngramHeader(root, "win32")).toBeNull();
    await fs.rm(join(root, ".engram", "engram.db"));
    await fs.writeFile(join(root, ".engram", "engram.db"), "SQLite format 3\0");
    expect((await readEngramHeader(root, "win32"))?.toString("latin1")).toBe("SQLite format 3\0");
  });
});
