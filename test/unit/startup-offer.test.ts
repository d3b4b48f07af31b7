import { describe, expect, it } from "vitest";
import { parseLauncherConfig } from "../../src/core/launcher-settings";
import { keyPress, panelLines, shouldOffer, skipRelease } from "../../src/core/offer-rules";
import { classifyLaunch } from "../../src/core/pi-launch";

/** offerAllowed for the launch `args` and `env` classify as. */
const offered = (args: string[], env: Record<string, string>, terminal: boolean) => classifyLaunch(args, env, terminal).offer;

describe("which launches check for an update", () => {
  it("plain startup and --continue/--resume in a terminal", () => {
    expect(offered([], {}, true)).toBe(true);
    expect(offered(["--continue"], {}, true)).toBe(true);
    expect(offered(["-r"], {}, true)).toBe(true);
  });

  it.each([
    ["commands", ["list"]],
    ["other forwarded options", ["--model", "x"]],
    ["a one-shot prompt", ["-p", "hi"]],
    ["RPC mode", ["--mode", "rpc"]],
  ])("not %s", (_what, args) => {
    expect(offered(args, {}, true)).toBe(false);
  });

  it("not without a terminal, offline, inside a Gentle Shell session, or right after the hand-over", () => {
    expect(offered([], {}, false)).toBe(false);
    expect(offered([], { PI_OFFLINE: "1" }, true)).toBe(false);
    expect(offered([], { PI_OFFLINE: "0" }, true)).toBe(true);
    expect(offered([], { GENTLE_SHELL_PREFIX: "/h/.gentle-shell" }, true)).toBe(false);
    expect(offered([], { GENTLE_SHELL_STARTUP_HANDOFF: "1" }, true)).toBe(false);
  });
});

describe("what is offered", () => {
  const none = parseLauncherConfig(null);
  it("a newer exact release", () => {
    expect(shouldOffer("4.0.0", "4.1.0", none)).toBe(true);
  });
  it.each([
    ["the same", "4.0.0"],
    ["an older", "3.9.9"],
    ["a malformed", "latest"],
    ["no", null],
  ])("not %s release", (_w, latest) => {
    expect(shouldOffer("4.0.0", latest, none)).toBe(false);
  });
  it("not the skipped release, but a newer one again", () => {
    const config = parseLauncherConfig(skipRelease(none, "4.1.0"));
    expect(shouldOffer("4.0.0", "4.1.0", config)).toBe(false);
    expect(shouldOffer("4.0.0", "4.2.0", config)).toBe(true);
  });
});

describe("the launcher's config.json", () => {
  it("skip stores only skippedStartupRelease and keeps unrelated settings", () => {
    const config = parseLauncherConfig('{"theme":"rose","skippedStartupRelease":"4.0.5"}');
    expect(JSON.parse(skipRelease(config, "4.1.0"))).toEqual({ theme: "rose", skippedStartupRelease: "4.1.0" });
  });
  it("a malformed file is marked unsavable, never replaced", () => {
    expect(parseLauncherConfig("{oops").unsavable).toBe("it is not valid JSON");
    expect(parseLauncherConfig("[1]").unsavable).toBe("it is not a JSON object");
  });
});

describe("keys", () => {
  it("arrows and 1-3 select, Enter confirms, Not now is the default", () => {
    expect(keyPress("\r", 1)).toEqual({ confirm: "not-now" });
    expect(keyPress("\u001b[A", 1)).toEqual({ selected: 0 });
    expect(keyPress("\u001b[B", 2)).toEqual({ selected: 0 });
    expect(keyPress("3", 1)).toEqual({ selected: 2 });
    expect(keyPress("\r", 0)).toEqual({ confirm: "update" });
    expect(keyPress("\r", 2)).toEqual({ confirm: "skip" });
  });
  it("Escape and end of input are Not now; Ctrl+C cancels", () => {
    expect(keyPress("\u001b", 0)).toEqual({ confirm: "not-now" });
    expect(keyPress("\u0004", 0)).toEqual({ confirm: "not-now" });
    expect(keyPress("\u0003", 0)).toEqual({ cancel: true });
    expect(keyPress("x", 0)).toBeNull();
  });
  it("the panel names both versions and the release notes", () => {
    const lines = panelLines("4.0.0", "4.1.0", 1).join("\n");
    expect(lines).toContain("Gentle Shell 4.1.0 is available (you have 4.0.0).");
    expect(lines).toContain("releases/tag/v4.1.0");
    expect(lines).toContain("❯ 2. Not now");
  });
});
