// The Windows user Path through a fake adapter, and the real adapter through
// a fake PowerShell runner (spec: "PATH", "Registry").
import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import { join } from "pathe";
import type { PowerShellRunner } from "../../../src/io/powershell";
import { applyPathEntry, removePathEntry } from "../../../src/path/apply";
import { pathEntryPlan } from "../../../src/path/entry-plan";
import { collectPathFacts } from "../../../src/path/probe";
import { windowsRegistry } from "../../../src/path/windows-registry";
import { pathEntryStep } from "../../../src/path/step";
import { fakeRegistry, makeLayout, root } from "./temp-home";

describe("Windows user Path through the adapter", () => {
  const wprefix = "C:/Users/u/AppData/Local/gentle-shell";
  const wlayout = () => makeLayout("C:/Users/u", "win32", wprefix);
  const ENTRY = "C:\\Users\\u\\AppData\\Local\\gentle-shell\\bin";

  it("appends to the raw value, keeps REG_EXPAND_SZ, leaves %VAR% unexpanded, broadcasts; removal restores it", async () => {
    const raw = "%USERPROFILE%\\.cargo\\bin;%LOCALAPPDATA%\\Microsoft\\WindowsApps";
    const { state, adapter } = fakeRegistry({ value: raw, type: "REG_EXPAND_SZ" });
    const facts = await collectPathFacts(wlayout(), {}, { registry: adapter });
    const p = pathEntryPlan(facts);
    const receipt = await applyPathEntry(p, { home: "C:/Users/u", registry: adapter });
    expect(receipt).toEqual({ schema: 1, kind: "registry", applied: true, key: "HKCU\\Environment", name: "Path", entry: ENTRY });
    expect(state.writes).toEqual([{ value: `${raw};${ENTRY}`, type: "REG_EXPAND_SZ" }]);
    expect(state.broadcasts).toBe(1);
    expect(await removePathEntry(receipt, { registry: adapter })).toEqual({ status: "removed" });
    expect(state.value).toEqual({ value: raw, type: "REG_EXPAND_SZ" });
    expect(state.broadcasts).toBe(2);
  });

  it("a REG_SZ value stays REG_SZ; an absent value is created as REG_EXPAND_SZ", async () => {
    const sz = fakeRegistry({ value: "C:\\Tools", type: "REG_SZ" });
    await applyPathEntry(pathEntryPlan(await collectPathFacts(wlayout(), {}, { registry: sz.adapter })), { home: "C:/Users/u", registry: sz.adapter });
    expect(sz.state.value).toEqual({ value: `C:\\Tools;${ENTRY}`, type: "REG_SZ" });
    const none = fakeRegistry(null);
    await applyPathEntry(pathEntryPlan(await collectPathFacts(wlayout(), {}, { registry: none.adapter })), { home: "C:/Users/u", registry: none.adapter });
    expect(none.state.value).toEqual({ value: ENTRY, type: "REG_EXPAND_SZ" });
  });

  it("already there in another case with a trailing backslash: nothing written, applied: false never reverted", async () => {
    const raw = "c:\\users\\u\\appdata\\local\\gentle-shell\\BIN\\;C:\\x";
    const { state, adapter } = fakeRegistry({ value: raw, type: "REG_EXPAND_SZ" });
    const p = pathEntryPlan(await collectPathFacts(wlayout(), {}, { registry: adapter }));
    expect(p.kind).toBe("none");
    const receipt = await applyPathEntry(p, { home: "C:/Users/u", registry: adapter });
    expect(receipt.applied).toBe(false);
    expect(await removePathEntry(receipt, { registry: adapter })).toEqual({ status: "not-applied" });
    expect(state.writes).toEqual([]);
    expect(state.broadcasts).toBe(0);
  });

  it("the installer step on Windows: already on this terminal's Path in backslashes and another case, so nothing to do (defect 13)", async () => {
    const { state, adapter } = fakeRegistry({ value: `C:\\x;${ENTRY}`, type: "REG_EXPAND_SZ" });
    const wl = wlayout();
    const real = { ...wl, pathReceipt: join(root, "path-entry-already.json") };
    const out = await pathEntryStep(real, { Path: `C:\\x;${ENTRY.toLowerCase()}\\` }, { registry: adapter });
    expect(out.status).toBe("already");
    expect(out.nextStep).toBe("Nothing to do: `gentle-shell` is already on this terminal's PATH.");
    expect(state.writes).toEqual([]);
  });

  it("a broadcast that fails or hangs never costs the receipt: the entry is written, recorded, and self-uninstall takes it back (defect 10)", async () => {
    const { state, adapter } = fakeRegistry({ value: "C:\\x", type: "REG_EXPAND_SZ" });
    const failing = { ...adapter, broadcastEnvironmentChange: async () => Promise.reject(new Error("announcing the new Path failed (exit null)")) };
    const real = { ...wlayout(), pathReceipt: join(root, "path-entry-broadcast.json") };
    const out = await pathEntryStep(real, { Path: "C:\\x" }, { registry: failing });
    expect(out.status).toBe("applied");
    expect(state.value?.value).toBe(`C:\\x;${ENTRY}`);
    const receipt = JSON.parse(fs.readFileSync(real.pathReceipt, "utf8"));
    expect(receipt).toEqual({ schema: 1, kind: "registry", key: "HKCU\\Environment", name: "Path", entry: ENTRY });
    expect(await removePathEntry({ ...receipt, applied: true }, { registry: failing })).toEqual({ status: "removed" });
    expect(state.value).toEqual({ value: "C:\\x", type: "REG_EXPAND_SZ" });
  });

  it("the installer step on Windows: applied, with a one-sentence next step", async () => {
    const { state, adapter } = fakeRegistry({ value: "C:\\x", type: "REG_EXPAND_SZ" });
    const wl = wlayout();
    // The receipt goes into a real folder standing in for the prefix.
    const real = { ...wl, pathReceipt: join(root, "path-entry.json") };
    const out = await pathEntryStep(real, { Path: "C:\\x" }, { registry: adapter });
    expect(out.status).toBe("applied");
    expect(out.nextStep).toMatch(/^Open a new terminal to use `gentle-shell`/);
    expect(state.value?.value).toBe(`C:\\x;${ENTRY}`);
    expect(JSON.parse(fs.readFileSync(real.pathReceipt, "utf8"))).toEqual({
      schema: 1,
      kind: "registry",
      key: "HKCU\\Environment",
      name: "Path",
      entry: ENTRY,
    });
  });
});

describe("the real Windows adapter, through a fake PowerShell runner", () => {
  function runner(reply: (script: string, env: Record<string, string>) => { status: number; stdout: string; stderr?: string }) {
    const calls: { script: string; env: Record<string, string> }[] = [];
    const run: PowerShellRunner = async (script, e) => {
      calls.push({ script, env: e });
      const r = reply(script, e);
      return { status: r.status, stdout: r.stdout, stderr: r.stderr ?? "" };
    };
    return { calls, run };
  }
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

  it("reads the raw value without expansion and its kind", async () => {
    const value = "%USERPROFILE%\\bin;C:\\Ünïcode";
    const { calls, run } = runner(() => ({ status: 0, stdout: `ExpandString ${b64(value)}\r\n` }));
    expect(await windowsRegistry(run).readUserPath()).toEqual({ value, type: "REG_EXPAND_SZ" });
    expect(calls[0]!.script).toContain("DoNotExpandEnvironmentNames");
  });
  it("an absent value reads as null; an empty one as empty text", async () => {
    expect(await windowsRegistry(runner(() => ({ status: 0, stdout: "absent\n" })).run).readUserPath()).toBeNull();
    expect(await windowsRegistry(runner(() => ({ status: 0, stdout: "String \n" })).run).readUserPath()).toEqual({ value: "", type: "REG_SZ" });
  });
  it("refuses a Path of another type", async () => {
    await expect(windowsRegistry(runner(() => ({ status: 0, stdout: "MultiString AAAA" })).run).readUserPath()).rejects.toThrow(/not text/);
  });
  it("writes the value through the environment, never in the script text, with its type", async () => {
    const value = "C:\\a'b\";$(calc);%PATH%";
    const { calls, run } = runner(() => ({ status: 0, stdout: "" }));
    await windowsRegistry(run).writeUserPath({ value, type: "REG_EXPAND_SZ" });
    expect(calls[0]!.env).toEqual({ GENTLE_SHELL_PATH_VALUE: b64(value), GENTLE_SHELL_PATH_TYPE: "REG_EXPAND_SZ" });
    expect(calls[0]!.script).not.toContain("calc");
    expect(calls[0]!.script).toContain("ExpandString");
  });
  it("broadcasts WM_SETTINGCHANGE for Environment", async () => {
    const { calls, run } = runner(() => ({ status: 0, stdout: "" }));
    await windowsRegistry(run).broadcastEnvironmentChange();
    expect(calls[0]!.script).toMatch(/0x1A.*'Environment'/);
  });
  it("a failing PowerShell is an error", async () => {
    await expect(
      windowsRegistry(runner(() => ({ status: 1, stdout: "", stderr: "Access denied" })).run).writeUserPath({ value: "x", type: "REG_SZ" }),
    ).rejects.toThrow(/Access denied/);
  });
});
