/**
 * status's update-policy row and field (issue 41), pure: the effective
 * `updates` value with the source it came from (the machine-wide file,
 * GENTLE_SHELL_UPDATES, config.json, the default), minimumReleaseAge only
 * when a source sets it, and a source that cannot be read shown as off with
 * its reason.
 */
import { describe, expect, it } from "vitest";
import { mergePolicy } from "../../src/core/update-policy";
import { updatesInfo, updatesRow } from "../../src/commands/status/updates";

const MACHINE = "/etc/gentle-shell/policy.json";
const CONFIG = "~/.gentle-shell/config/config.json";
const policy = (machine: Record<string, unknown> | "absent" | string, env: string | undefined, config: Record<string, unknown> | "absent") =>
  mergePolicy({
    machine: {
      path: MACHINE,
      source:
        machine === "absent" ? { kind: "absent" } : typeof machine === "string" ? { kind: "unreadable", reason: machine } : { kind: "read", settings: machine },
    },
    env,
    config: { path: CONFIG, source: config === "absent" ? { kind: "absent" } : { kind: "read", settings: config } },
  });

describe("status's updates row and field", () => {
  it("nothing set: on, the default, no minimum age", () => {
    const info = updatesInfo(policy("absent", undefined, "absent"));
    expect(info).toEqual({ value: "on", from: "default", where: null, minimumReleaseAge: null, problem: null, machine: null });
    expect(updatesRow(info)).toBe("on (the default)");
  });

  it("the machine-wide file beats the environment and config.json, and is named with its path", () => {
    const info = updatesInfo(policy({ updates: "off" }, "on", { updates: "on", minimumReleaseAge: "3d" }));
    expect(info).toEqual({
      value: "off",
      from: "machine",
      where: MACHINE,
      minimumReleaseAge: { minutes: 3 * 1440, setting: "3d", from: "config", where: CONFIG },
      problem: null,
      machine: { where: MACHINE, tier: "locked" },
    });
    expect(updatesRow(info)).toBe(`off, set by the machine-wide policy ${MACHINE}; minimumReleaseAge 3 days, set by ${CONFIG}`);
  });

  it("the environment, then config.json; one day is a day, said with its unit", () => {
    expect(updatesRow(updatesInfo(policy("absent", "notify", { updates: "on" })))).toBe("notify, set by the environment variable GENTLE_SHELL_UPDATES");
    expect(updatesRow(updatesInfo(policy({ minimumReleaseAge: "24h" }, undefined, { updates: "notify" })))).toBe(
      `notify, set by ${CONFIG}; minimumReleaseAge 1 day, set by the machine-wide policy ${MACHINE}`,
    );
  });

  it("a source that cannot be read or says something unknown: off, with why", () => {
    const unreadable = updatesInfo(policy("it is writable by others", "on", "absent"));
    expect(unreadable).toMatchObject({ value: "off", from: "machine", where: MACHINE });
    expect(updatesRow(unreadable)).toBe(`off: the machine-wide policy ${MACHINE} cannot be read (it is writable by others), so updates count as off`);
    expect(updatesRow(updatesInfo(policy("absent", undefined, { minimumReleaseAge: "90m" })))).toBe(
      `on (the default); minimumReleaseAge 90 minutes, set by ${CONFIG}`,
    );
    expect(updatesRow(updatesInfo(policy("absent", "sometimes", "absent")))).toBe(
      'off: GENTLE_SHELL_UPDATES="sometimes" is not "on", "notify" or "off", so updates count as off',
    );
  });
});
