// shadowingCommand against the spec's table ("Migration from a global
// install"). The same on a real PATH is in step.test.ts.
import { describe, expect, it } from "vitest";
import type { PathEntryPlan } from "../../../src/path/entry-plan";
import { shadowingCommand } from "../../../src/path/shadow";
import { BIN, FISH, H, LAUNCHER, LINE } from "./facts";

describe("shadowingCommand: the spec's table", () => {
  const OLD = "/home/u/.local/share/pnpm";
  const commands =
    (...files: string[]) =>
    (f: string) =>
      files.includes(f);
  const base = { platform: "linux" as const, home: H, env: {}, bin: BIN };
  const line = (shell: "zsh" | "bash" | "fish" | "sh"): PathEntryPlan => ({
    kind: "line",
    shell,
    file: "f",
    line: shell === "fish" ? FISH : LINE,
    create: false,
  });

  it.each(["zsh", "bash", "sh"] as const)("a %s line puts our bin first: ours wins over an old gentle-shell on PATH", (shell) => {
    const r = shadowingCommand(line(shell), { ...base, path: `${OLD}:/usr/bin`, isCommand: commands(`${OLD}/gentle-shell`) });
    expect(r).toEqual({ position: "first", runs: `${BIN}/gentle-shell`, ours: true });
  });

  it("the fish conf.d line counts last: an old gentle-shell anywhere on PATH wins, and is named", () => {
    const r = shadowingCommand(line("fish"), { ...base, path: `/usr/bin:${OLD}`, isCommand: commands(`${OLD}/gentle-shell`) });
    expect(r.position).toBe("last");
    expect(r.ours).toBe(false);
    expect(r.runs).toBe(`${OLD}/gentle-shell`);
    expect(r.shadowedBy?.message).toContain("~/.local/share/pnpm/gentle-shell");
    expect(r.shadowedBy?.message).toContain("config.fish");
  });

  it("the fish line wins when no other gentle-shell is on PATH", () => {
    expect(shadowingCommand(line("fish"), { ...base, path: "/usr/bin", isCommand: commands("/usr/bin/node") })).toEqual({
      position: "last",
      runs: `${BIN}/gentle-shell`,
      ours: true,
    });
  });

  it("the Windows user Path entry counts last, after the machine Path; PATHEXT names are found", () => {
    const npm = "C:\\Users\\u\\AppData\\Roaming\\npm";
    const plan: PathEntryPlan = { kind: "registry", key: "HKCU\\Environment", name: "Path", entry: "C:\\P\\bin" };
    const r = shadowingCommand(plan, {
      platform: "win32",
      home: "C:/Users/u",
      env: { PATHEXT: ".COM;.EXE;.CMD" },
      bin: "C:/P/bin",
      path: `C:\\Windows;${npm}`,
      isCommand: (f) => f.toLowerCase() === "c:/users/u/appdata/roaming/npm/gentle-shell.cmd",
    });
    expect(r).toMatchObject({ position: "last", ours: false });
    expect(r.shadowedBy?.message).toContain("machine Path");
  });

  it("the Windows entry already first in PATH: ours, where it already is", () => {
    const plan: PathEntryPlan = { kind: "none", existing: { kind: "registry", key: "HKCU\\Environment", name: "Path", entry: "C:\\P\\bin" } };
    const r = shadowingCommand(plan, { platform: "win32", home: "C:/Users/u", env: {}, bin: "C:/P/bin", path: "c:\\p\\bin\\;C:\\npm", isCommand: () => true });
    expect(r).toMatchObject({ position: "existing", ours: true });
  });

  it("the ~/.local/bin link sits where ~/.local/bin is: an old one earlier on PATH wins", () => {
    const plan: PathEntryPlan = { kind: "link", path: `${H}/.local/bin/gentle-shell`, target: LAUNCHER };
    const earlier = shadowingCommand(plan, { ...base, path: `${OLD}:${H}/.local/bin`, isCommand: commands(`${OLD}/gentle-shell`) });
    expect(earlier).toMatchObject({ position: "existing", ours: false, runs: `${OLD}/gentle-shell` });
    const later = shadowingCommand(plan, { ...base, path: `${H}/.local/bin:${OLD}`, isCommand: commands(`${OLD}/gentle-shell`) });
    expect(later).toMatchObject({ position: "existing", ours: true, runs: `${H}/.local/bin/gentle-shell` });
  });

  it("no change: our bin stays where it already is on PATH", () => {
    const plan: PathEntryPlan = { kind: "none", existing: { kind: "line", shell: "zsh", file: "f", line: LINE } };
    const r = shadowingCommand(plan, { ...base, path: `${OLD}:${BIN}`, isCommand: commands(`${OLD}/gentle-shell`) });
    expect(r).toMatchObject({ position: "existing", ours: false, runs: `${OLD}/gentle-shell` });
  });

  it("a line already in the file but not yet on this PATH: placed by its shell's rule", () => {
    const plan: PathEntryPlan = { kind: "none", existing: { kind: "line", shell: "zsh", file: "f", line: LINE } };
    expect(shadowingCommand(plan, { ...base, path: OLD, isCommand: commands(`${OLD}/gentle-shell`) })).toMatchObject({ position: "first", ours: true });
  });

  it("a manual plan changes nothing: the old one keeps running", () => {
    const plan: PathEntryPlan = { kind: "manual", shell: "bash", file: "f", line: LINE, reason: "link" };
    expect(shadowingCommand(plan, { ...base, path: OLD, isCommand: commands(`${OLD}/gentle-shell`) })).toMatchObject({
      position: "unchanged",
      ours: false,
      runs: `${OLD}/gentle-shell`,
    });
  });
});
