/**
 * The launcher with our Node gone (issue 47, item 1): it names what is
 * missing, Node and its path, not "no active version", and the repair a user
 * can run from where they are: `gentle-shell-setup doctor --fix` when that
 * program is on PATH, else the one-liner again (whose install downloads a
 * broken runtime again). The POSIX launcher runs for real in a home whose
 * name holds a quote, `$HOME`, `%PATH%` and letters outside ASCII; the
 * Windows .cmd's lines are read (the Windows lane runs cmd.exe).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, promises as fs } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { prefixLayout, type Layout } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { ONE_LINER } from "../../src/core/source";
import {
  cmdLauncher,
  ensureLauncher,
  NO_ACTIVE_VERSION,
  NO_ACTIVE_VERSION_HINT,
  NODE_MISSING,
  NODE_REPAIR_FIX,
  nodeRepairRerun,
} from "../../src/install/launcher";
import { activateVersion } from "../../src/install/activate";
import { VERSION_MARKER } from "../../src/install/version-marker";
import { requires } from "../support/capabilities";

let home: string | undefined;
let layout: Layout;
const odd = "we i'rd $HOME !x %PATH% ünï";

const launch = (PATH = "/usr/bin:/bin") => spawnSync(layout.launcher, ["--version"], { encoding: "utf8", env: { PATH } });

describe("the POSIX launcher with our Node gone", () => {
  beforeEach(async (ctx) => {
    // The POSIX launcher is a /bin/sh script run through the current link.
    requires(ctx, "posix-shell", "symlinks");
    home = join(mkdtempSync(join(tmpdir(), "gss-launcher-node-")), odd);
    await fs.mkdir(home, { recursive: true });
    layout = prefixLayout({ home, platform: "linux", pins: productionPins });
    const id = "4.0.0-1.6.0";
    await fs.mkdir(join(layout.nodeDir, "bin"), { recursive: true });
    await fs.writeFile(layout.node, "#!/bin/sh\necho node ran\n", { mode: 0o755 });
    await fs.mkdir(join(layout.versions, id, ".gentle-shell"), { recursive: true });
    await fs.writeFile(join(layout.versions, id, ".gentle-shell", "engine.cjs"), "");
    await fs.writeFile(join(layout.versions, id, VERSION_MARKER), `${id}\n`);
    await activateVersion(layout, id);
    await ensureLauncher(layout);
  });
  afterEach(async () => {
    if (home) await fs.rm(join(home, ".."), { recursive: true, force: true });
  });

  it("runs Node while it is there (the control)", (ctx) => {
    requires(ctx, "posix-shell", "symlinks");
    const r = launch();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe("node ran\n");
  });

  it("Node deleted: names Node and its path, and the one-liner, in one line; exit 1; no 'no active version'", async (ctx) => {
    requires(ctx, "posix-shell", "symlinks");
    await fs.rm(layout.node);
    const r = launch();
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`${NODE_MISSING} (${layout.node}); ${nodeRepairRerun("posix")}\n${NO_ACTIVE_VERSION_HINT}\n`);
    expect(r.stderr).toContain("running the Gentle Shell installer again");
    expect(r.stderr).toContain(ONE_LINER.posix);
    expect(r.stderr).not.toContain(NO_ACTIVE_VERSION);
  });

  it("Node no longer executable (chmod -x): the same sentence", async (ctx) => {
    requires(ctx, "posix-shell", "symlinks", "posix-modes");
    await fs.chmod(layout.node, 0o644);
    const r = launch();
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`${NODE_MISSING} (${layout.node}); ${nodeRepairRerun("posix")}\n${NO_ACTIVE_VERSION_HINT}\n`);
  });

  it("with gentle-shell-setup on PATH, names gentle-shell-setup doctor --fix instead", async (ctx) => {
    requires(ctx, "posix-shell", "symlinks");
    const bin = join(home!, "..", "tools");
    await fs.mkdir(bin);
    await fs.writeFile(join(bin, "gentle-shell-setup"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    await fs.rm(layout.node);
    const r = launch(`${bin}:/usr/bin:/bin`);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`${NODE_MISSING} (${layout.node}); ${NODE_REPAIR_FIX}\n${NO_ACTIVE_VERSION_HINT}\n`);
    expect(NODE_REPAIR_FIX).toBe("repair it with gentle-shell-setup doctor --fix.");
  });
});

describe("the Windows launcher with our Node gone", () => {
  it("goes to its own lines, which never echo the prefix, name doctor --fix where gentle-shell-setup is found, else irm | iex", () => {
    const w = prefixLayout({ home: "C:/Users/a", platform: "win32", pins: productionPins, windowsPrefix: odd });
    const lines = cmdLauncher(w).split("\r\n");
    expect(lines).toContain('IF NOT EXIST "%GS_NODE%" GOTO nonode');
    const at = lines.indexOf(":nonode");
    expect(at).toBeGreaterThan(lines.findIndex((l) => l.startsWith('"%GS_NODE%"')));
    expect(lines.slice(at, at + 10)).toEqual([
      ":nonode",
      "WHERE /Q gentle-shell-setup 2>NUL",
      "IF ERRORLEVEL 1 GOTO rerun",
      `ECHO ${NODE_MISSING}; ${NODE_REPAIR_FIX} 1>&2`,
      `ECHO ${NO_ACTIVE_VERSION_HINT} 1>&2`,
      "EXIT /B 1",
      ":rerun",
      `ECHO ${NODE_MISSING}; ${nodeRepairRerun("windows").replace("|", "^|")} 1>&2`,
      `ECHO ${NO_ACTIVE_VERSION_HINT} 1>&2`,
      "EXIT /B 1",
    ]);
    // cmd.exe prints ^| as |, and nothing else in the words is its syntax.
    expect(nodeRepairRerun("windows")).toContain(ONE_LINER.windows);
    expect(`${NODE_MISSING}; ${NODE_REPAIR_FIX}`).toMatch(/^gentle-shell: [A-Za-z0-9 .,;:'-]+$/);
    expect(lines.slice(at).join("\n")).not.toContain("%GS_");
  });
});
