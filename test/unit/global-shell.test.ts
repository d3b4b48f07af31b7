/**
 * Migration from a global install, the pure decisions (src/core/migration-rules.ts):
 * installOwner, migrationGate, the removal command and question, the
 * answers, and how the user's manager is started on Windows.
 */
import { describe, expect, it } from "vitest";
import {
  channelOf,
  installOwner,
  managerInvocation,
  migrationExplanation,
  migrationGate,
  olderThanGlobal,
  removalCommand,
  removalQuestion,
  type ManagerReport,
  type Owner,
} from "../../src/core/migration-rules";
import { confirm } from "../../src/io/confirm";

const none = (manager: "npm" | "pnpm", executable: string | null = `/usr/bin/${manager}`): ManagerReport => ({
  manager,
  executable,
  packageDir: null,
  linked: false,
  version: null,
});
const has = (manager: "npm" | "pnpm", version: string | null = "4.0.0", linked = false): ManagerReport => ({
  manager,
  executable: `/usr/bin/${manager}`,
  packageDir: `/g/${manager}/gentle-pi`,
  linked,
  version,
});
const owned = (version = "4.0.0", manager: "npm" | "pnpm" = "npm"): Owner =>
  installOwner([manager === "npm" ? has("npm", version) : none("npm"), manager === "pnpm" ? has("pnpm", version) : none("pnpm")]);

describe("installOwner", () => {
  it("names npm or pnpm when exactly one of them has an installed global gentle-pi", () => {
    expect(installOwner([has("npm"), none("pnpm")])).toEqual({
      kind: "manager",
      manager: "npm",
      executable: "/usr/bin/npm",
      packageDir: "/g/npm/gentle-pi",
      version: "4.0.0",
    });
    expect(installOwner([none("npm"), has("pnpm")])).toMatchObject({ kind: "manager", manager: "pnpm" });
  });
  it("an npm link is a link, never an owner", () => {
    expect(installOwner([has("npm", "4.0.0", true), none("pnpm")])).toEqual({ kind: "link", manager: "npm", packageDir: "/g/npm/gentle-pi" });
  });
  it("two managers with a global gentle-pi leave the owner unclear", () => {
    expect(installOwner([has("npm"), has("pnpm")])).toEqual({ kind: "several", managers: ["npm", "pnpm"] });
  });
  it("no manager installed, or none with the package, is no owner", () => {
    expect(installOwner([none("npm", null), none("pnpm", null)])).toEqual({ kind: "none" });
    expect(installOwner([none("npm"), none("pnpm")])).toEqual({ kind: "none" });
  });
});

describe("migrationGate", () => {
  it("passes for an npm or pnpm owner of a release version on a supported target, the release not yet known", () => {
    expect(migrationGate({ owner: owned(), targetSupported: true, release: null })).toEqual({ migrate: true, manager: "npm", installed: "4.0.0" });
    expect(migrationGate({ owner: owned("4.0.0", "pnpm"), targetSupported: true, release: "4.1.0" })).toEqual({
      migrate: true,
      manager: "pnpm",
      installed: "4.0.0",
    });
  });
  it("an equal release still migrates (not older than the installed one)", () => {
    expect(migrationGate({ owner: owned("4.1.0"), targetSupported: true, release: "4.1.0" }).migrate).toBe(true);
  });
  it("refuses a release older than the installed Gentle Shell", () => {
    expect(migrationGate({ owner: owned("4.1.0"), targetSupported: true, release: "4.0.0" })).toEqual({
      migrate: false,
      reason: "Gentle Shell 4.0.0 is older than the global gentle-pi 4.1.0",
    });
  });
  it("never moves a link, an unclear owner, or nothing", () => {
    expect(migrationGate({ owner: installOwner([has("npm", "4.0.0", true)]), targetSupported: true, release: null })).toEqual({
      migrate: false,
      reason: "the global gentle-pi is an npm link to /g/npm/gentle-pi, which is never moved",
    });
    expect(migrationGate({ owner: { kind: "several", managers: ["npm", "pnpm"] }, targetSupported: true, release: null }).migrate).toBe(false);
    expect(migrationGate({ owner: { kind: "none" }, targetSupported: true, release: null }).migrate).toBe(false);
  });
  it("refuses an unsupported target and anything but the release channel", () => {
    expect(migrationGate({ owner: owned(), targetSupported: false, release: null })).toEqual({
      migrate: false,
      reason: "this machine's platform has no pinned runtimes",
    });
    expect(migrationGate({ owner: owned("4.1.0-main.3"), targetSupported: true, release: null })).toEqual({
      migrate: false,
      reason: "the global gentle-pi 4.1.0-main.3 is not a release version",
    });
    expect(migrationGate({ owner: installOwner([has("npm", null)]), targetSupported: true, release: null }).migrate).toBe(false);
  });
  it("the channel is release only for an exact version without a pre-release", () => {
    expect(channelOf("4.0.0")).toBe("release");
    expect(channelOf("4.0.0-rc.1")).toBe("other");
    expect(channelOf("github:x/y")).toBe("other");
    expect(channelOf(null)).toBe("other");
  });
});

describe("the removal", () => {
  it("runs each manager's own command, and asks with the spec's question", () => {
    expect(removalCommand("npm")).toBe("npm uninstall -g gentle-pi");
    expect(removalCommand("pnpm")).toBe("pnpm remove -g gentle-pi");
    expect(removalQuestion("pnpm")).toBe("Remove the old global gentle-pi with pnpm (pnpm remove -g gentle-pi)? [y/N] ");
  });
  it("only y or yes removes (the question's default is No, as migrate asks it through io/confirm.ts); an empty answer and anything else answer No", async () => {
    const asked = (answer: string) => confirm({ ask: async () => ({ answer }) }, removalQuestion("npm"), "no");
    for (const a of ["y", "Y", "yes", " YES "]) expect(await asked(a)).toBe("yes");
    for (const a of ["", "n", "no", "yep", "y y"]) expect(await asked(a)).toBe("no");
    expect(removalQuestion("npm")).toMatch(/\[y\/N\] $/);
  });
});

describe("the explanation", () => {
  it("names the prefix, the user's own tools left alone and the agent home kept, with the home as ~", () => {
    const lines = migrationExplanation({
      prefix: "/h/.gentle-shell",
      home: "/h",
      agent: "/h/.gentle-shell/agent",
      manager: "npm",
      installed: "4.0.0",
      shell: "4.1.0",
      pi: "1.6.0",
    });
    expect(lines[0]).toBe("Your Gentle Shell 4.0.0 is a global gentle-pi installed with npm. This moves it to the bundled install:");
    expect(lines.join("\n")).toContain("Gentle Shell 4.1.0 with its exact Pi 1.6.0, with its own Node and pnpm, goes into ~/.gentle-shell;");
    expect(lines.join("\n")).toContain("your own Node, npm, pnpm and Pi are not touched, and ~/.gentle-shell/agent stays where it is");
  });
});

describe("managerInvocation", () => {
  it("starts a POSIX manager directly, without a shell", () => {
    expect(managerInvocation("linux", "/usr/bin/npm", ["root", "-g"], undefined)).toEqual({ command: "/usr/bin/npm", args: ["root", "-g"], verbatim: false });
  });
  it("starts a Windows .cmd through cmd.exe with its path quoted", () => {
    expect(managerInvocation("win32", "C:\\Program Files\\nodejs\\npm.cmd", ["root", "-g"], "C:\\Windows\\system32\\cmd.exe")).toEqual({
      command: "C:\\Windows\\system32\\cmd.exe",
      args: ["/d", "/s", "/c", '""C:\\Program Files\\nodejs\\npm.cmd" root -g"'],
      verbatim: true,
    });
  });
  it("refuses a .cmd path that cmd.exe would expand or split", () => {
    for (const p of ["C:\\a%PATH%\\npm.cmd", "C:\\a&b\\npm.cmd", 'C:\\a"b\\npm.cmd', "C:\\a^b\\npm.cmd"]) {
      expect(managerInvocation("win32", p, ["root", "-g"], undefined)).toHaveProperty("refused");
    }
  });
  it("an .exe on Windows is started directly", () => {
    expect(managerInvocation("win32", "C:\\tools\\pnpm.exe", ["ls"], undefined)).toEqual({ command: "C:\\tools\\pnpm.exe", args: ["ls"], verbatim: false });
  });
});

describe("olderThanGlobal (the web installer's refusal)", () => {
  const npm = { kind: "manager", manager: "npm", executable: "/usr/bin/npm", packageDir: "/g/gentle-pi", version: "4.1.0" } as const;

  it("refuses a release older than the global gentle-pi that npm or pnpm owns, naming both versions, --release and the removal", () => {
    expect(olderThanGlobal(npm, "4.0.0")).toBe(
      "Gentle Shell 4.0.0 is older than your global gentle-pi 4.1.0 (npm) and would take its place on PATH, so nothing was installed; run the installer with --release 4.1.0 (or newer), or first remove the global one with npm uninstall -g gentle-pi",
    );
    expect(olderThanGlobal({ ...npm, manager: "pnpm" }, "4.0.9")).toContain("first remove the global one with pnpm remove -g gentle-pi");
  });

  it("lets the same or a newer release through, and decides nothing before the release is known", () => {
    expect(olderThanGlobal(npm, "4.1.0")).toBeNull();
    expect(olderThanGlobal(npm, "4.10.0")).toBeNull();
    expect(olderThanGlobal(npm, null)).toBeNull();
  });

  it("leaves links, two owners, none and a global that is no release version to the plan's own lines", () => {
    expect(olderThanGlobal({ kind: "link", manager: "npm", packageDir: "/src/gentle-pi" }, "1.0.0")).toBeNull();
    expect(olderThanGlobal({ kind: "several", managers: ["npm", "pnpm"] }, "1.0.0")).toBeNull();
    expect(olderThanGlobal({ kind: "none" }, "1.0.0")).toBeNull();
    expect(olderThanGlobal({ ...npm, version: "5.0.0-beta.1" }, "4.0.0")).toBeNull();
  });
});
