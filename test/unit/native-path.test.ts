/**
 * Native paths keep their native separators (issue 39, defect 4; spec:
 * "Layout"). On POSIX a backslash or a newline is an ordinary filename
 * character, so a HOME such as /home/DOMAIN\user gets its prefix inside it,
 * not in a sibling DOMAIN/user; a Windows path, on Windows or in the Windows
 * layouts built here on Linux, is spelled with `/` as before
 * (core/native-path.ts). Before, pathe turned each `\` into `/`.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, promises as fs, readdirSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { prefixLayout, tildify, unusablePrefix } from "../../src/core/layout";
import { basename, dirname, isAbsolute, join, normalize, relative, resolve, windowsShaped } from "../../src/core/native-path";
import { userNpmrc } from "../../src/install/npm-settings";
import { productionPins } from "../../src/pins/production";
import { REPO_ROOT } from "../support/paths";

// No Windows file name can hold a backslash (there it always separates), so a POSIX name holding one exists only on POSIX.
const posixOnly = it.skipIf(process.platform === "win32");

describe("a POSIX path keeps a backslash and a newline in its names", () => {
  posixOnly("join, dirname, basename, normalize, resolve and relative follow POSIX rules", () => {
    expect(join("/home/DOMAIN\\user", ".gentle-shell", "bin")).toBe("/home/DOMAIN\\user/.gentle-shell/bin");
    expect(join("/tmp/new\nline", "x")).toBe("/tmp/new\nline/x");
    expect(dirname("/home/hb\\x/.gentle-shell")).toBe("/home/hb\\x");
    expect(basename("/home/hb\\x")).toBe("hb\\x");
    expect(normalize("/home/hb\\x/./a/../b")).toBe("/home/hb\\x/b");
    expect(resolve("/home/hb\\x", "b")).toBe("/home/hb\\x/b");
    expect(relative("/home/hb\\x", "/home/hb\\x/.gentle-shell")).toBe(".gentle-shell");
    expect(isAbsolute("hb\\x")).toBe(false);
  });

  posixOnly("the layout of a HOME ending hb\\x (linux rules) is inside that HOME, and shows as ~", () => {
    const home = "/tmp/hb\\x";
    const layout = prefixLayout({ home, platform: "linux", pins: productionPins });
    expect(layout.prefix).toBe("/tmp/hb\\x/.gentle-shell");
    expect(layout.launcher).toBe("/tmp/hb\\x/.gentle-shell/bin/gentle-shell");
    expect(layout.pnpm.npmrc).toBe("/tmp/hb\\x/.gentle-shell/pnpm/config/npmrc");
    expect(layout.agent).toBe("/tmp/hb\\x/.gentle-shell/agent");
    for (const path of [layout.current, layout.node, layout.npm.globalconfig, layout.tmp]) expect(path.startsWith(`${home}/.gentle-shell/`)).toBe(true);
    expect(tildify(layout.launcher, home)).toBe("~/.gentle-shell/bin/gentle-shell");
  });

  posixOnly("an install there is refused, since Node loads no package from a folder whose path holds a backslash; a newline is fine", () => {
    const layout = (home: string) => prefixLayout({ home, platform: "linux", pins: productionPins });
    expect(unusablePrefix(layout("/tmp/hb\\x"))).toBe(
      "the Gentle Shell folder /tmp/hb\\x/.gentle-shell holds a backslash (\\) in its path, and Node cannot load packages from such a folder; run the installer with HOME set to a folder whose path has none",
    );
    expect(unusablePrefix(layout("/tmp/new\nline"))).toBeNull();
    expect(unusablePrefix(layout("/home/me"))).toBeNull();
    expect(unusablePrefix(prefixLayout({ home: "C:\\Users\\me", platform: "win32", pins: productionPins }))).toBeNull();
  });

  posixOnly("the user's .npmrc is read from that HOME, not from a sibling folder", async () => {
    const root = realpathSync(mkdtempSync(nodePath.join(tmpdir(), "gss-native-path-")));
    try {
      const home = nodePath.join(root, "hb\\x");
      await fs.mkdir(home);
      await fs.writeFile(nodePath.join(home, ".npmrc"), "registry=http://127.0.0.1:9/\n");
      const read = await userNpmrc({}, home);
      expect(read).toEqual({ path: `${home}/.npmrc`, text: "registry=http://127.0.0.1:9/\n" });
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});

describe("a Windows path is spelled with / as before", () => {
  it("a drive or a UNC share has Windows' shape; a POSIX path never does", () => {
    for (const p of ["C:\\Users\\me", "c:/x", "D:", "\\\\server\\share", "//server/share"]) expect(windowsShaped(p), p).toBe(true);
    for (const p of ["/home/DOMAIN\\user", "hb\\x", "/tmp/C:", "relative/C:\\x"]) expect(windowsShaped(p), p).toBe(false);
  });

  it("join and dirname of a drive path turn \\ into /", () => {
    expect(join("C:\\Users\\me", ".gentle-shell")).toBe("C:/Users/me/.gentle-shell");
    expect(dirname("C:\\Users\\me\\AppData")).toBe("C:/Users/me");
    expect(isAbsolute("C:\\Users\\me")).toBe(true);
    expect(relative("C:\\Users\\me", "C:/Users/me/AppData/Local")).toBe("AppData/Local");
  });

  it("the Windows layout (win32 rules) from a backslashed USERPROFILE and private folder", () => {
    const windowsPrefix = "C:\\Users\\me\\AppData\\Local\\gentle-shell";
    const layout = prefixLayout({ home: "C:\\Users\\me", platform: "win32", pins: productionPins, windowsPrefix });
    // The private folder as the adapter claimed it; everything joined to it in /.
    expect(layout.prefix).toBe(windowsPrefix);
    expect(layout.launcher).toBe("C:/Users/me/AppData/Local/gentle-shell/bin/gentle-shell.cmd");
    expect(layout.agent).toBe("C:/Users/me/.gentle-shell/agent");
    expect(tildify(layout.agent, "C:\\Users\\me")).toBe("~/.gentle-shell/agent");
  });
});

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(nodePath.join(dir, e.name)) : e.name.endsWith(".ts") ? [nodePath.join(dir, e.name)] : [],
  );
}

describe("one way to build a path", () => {
  it("no module of src but core/native-path.ts imports pathe, whose join would turn a POSIX name's backslash into a separator", () => {
    const found = sources(nodePath.join(REPO_ROOT, "src"))
      .map((path) => nodePath.relative(REPO_ROOT, path).split(nodePath.sep).join("/"))
      .filter((rel) => rel !== "src/core/native-path.ts" && /from\s*"pathe"/.test(readFileSync(nodePath.join(REPO_ROOT, rel), "utf8")));
    expect(found).toEqual([]);
  });
});
