/**
 * The machine-wide file's two tiers (issue 47, item 2), through the pure
 * merge (src/core/update-policy.ts): without "enforce", or with true, its
 * values are locked; with "enforce": false they are defaults a user's
 * GENTLE_SHELL_UPDATES or config.json may change. A file that cannot be read
 * or understood is locked off in either tier. config.json's other keys, and
 * the administrator's keys written there, are not read.
 */
import { describe, expect, it } from "vitest";
import { mergePolicy, policyRefusal } from "../../src/core/update-policy";
import { updatesInfo, updatesRow } from "../../src/commands/status/updates";
import { absent, CONFIG, inputs, MACHINE, read } from "../support/policy-inputs";

describe("the locked tier", () => {
  it.each([{}, { enforce: true }])("with %j: the file's values beat the environment and config.json", (tier) => {
    const policy = mergePolicy(inputs(read({ ...tier, updates: "off", minimumReleaseAge: "7d" }), "on", read({ updates: "on", minimumReleaseAge: "0m" })));
    expect(policy).toMatchObject({
      updates: "off",
      from: { kind: "machine", path: MACHINE, locked: true },
      minimumAgeMinutes: 7 * 1440,
      ageFrom: { kind: "machine", locked: true },
      machine: { path: MACHINE, locked: true },
    });
    expect(policyRefusal(policy, "gentle-shell upgrade")).toBe(
      `gentle-shell upgrade was not run: updates are off by the machine-wide policy ${MACHINE}; nothing was changed`,
    );
    expect(updatesInfo(policy).machine).toEqual({ where: MACHINE, tier: "locked" });
  });

  it("with on, a user's off is beaten too (the administrator's on is locked)", () => {
    expect(mergePolicy(inputs(read({ updates: "on" }), "off", absent))).toMatchObject({ updates: "on", from: { kind: "machine" } });
  });
});

describe("the defaults tier", () => {
  const defaults = read({ enforce: false, updates: "off", minimumReleaseAge: "7d" });

  it("lets GENTLE_SHELL_UPDATES win over the file's updates, and keeps the file's age the user does not set", () => {
    const policy = mergePolicy(inputs(defaults, "on", absent));
    expect(policy).toMatchObject({ updates: "on", from: { kind: "env" }, minimumAgeMinutes: 7 * 1440, ageFrom: { kind: "machine", locked: false } });
    expect(policyRefusal(policy, "gentle-shell upgrade")).toBeNull();
    expect(updatesRow(updatesInfo(policy))).toBe(
      `on, set by the environment variable GENTLE_SHELL_UPDATES; minimumReleaseAge 7 days, set by the machine-wide defaults ${MACHINE}`,
    );
  });

  it("lets config.json win over the file, for updates and the age", () => {
    const policy = mergePolicy(inputs(defaults, undefined, read({ updates: "notify", minimumReleaseAge: "12h" })));
    expect(policy).toMatchObject({ updates: "notify", from: { kind: "config" }, minimumAgeMinutes: 720, ageFrom: { kind: "config" } });
    expect(updatesInfo(policy)).toMatchObject({ machine: { where: MACHINE, tier: "defaults" }, minimumReleaseAge: { minutes: 720, setting: "12h" } });
    expect(updatesRow(updatesInfo(policy))).toBe(
      `notify, set by ${CONFIG}; minimumReleaseAge 12 hours, set by ${CONFIG} (over the machine-wide defaults ${MACHINE})`,
    );
  });

  it("holds when the user sets nothing, and its off names the file as defaults", () => {
    const policy = mergePolicy(inputs(defaults, undefined, read({ channel: "release" })));
    expect(policy).toMatchObject({ updates: "off", from: { kind: "machine", locked: false } });
    expect(policyRefusal(policy, "gentle-shell update")).toBe(
      `gentle-shell update was not run: updates are off by the machine-wide defaults ${MACHINE}; nothing was changed`,
    );
  });

  it("is locked off when the file has a problem: a file that cannot be understood does not get to say it is only defaults", () => {
    const policy = mergePolicy(inputs(read({ enforce: false, updates: "sometimes" }), "on", read({ updates: "on" })));
    expect(policy).toMatchObject({ updates: "off", from: { kind: "machine", locked: true } });
    expect(policy.problem).toBe(`the machine-wide policy ${MACHINE} sets updates to "sometimes", not "on", "notify" or "off"`);
  });
});

describe("keys", () => {
  it("reads allowExactVersions from the machine-wide file only, in either tier", () => {
    expect(mergePolicy(inputs(read({ allowExactVersions: true }), undefined, absent)).allowExactVersions).toBe(true);
    expect(mergePolicy(inputs(read({ enforce: false, allowExactVersions: true }), undefined, absent)).allowExactVersions).toBe(true);
    expect(mergePolicy(inputs(absent, undefined, read({ allowExactVersions: true }))).allowExactVersions).toBe(false);
  });

  it("reads only the policy's keys in config.json: the launcher's own, and the administrator's enforce, are not the policy's", () => {
    const policy = mergePolicy(inputs(read({ updates: "off" }), undefined, read({ enforce: false, skippedStartupRelease: "4.1.0", updates: "on" })));
    expect(policy).toMatchObject({ updates: "off", from: { kind: "machine", locked: true }, problem: null });
  });

  it("counts an unknown key in the machine-wide file as off, naming each key", () => {
    const policy = mergePolicy(inputs(read({ updates: "on", minimumReleaseAgeDays: 7, Enforce: false }), "on", absent));
    expect(policy).toMatchObject({ updates: "off", from: { kind: "machine", locked: true } });
    expect(policyRefusal(policy, "gentle-shell upgrade")).toBe(
      `gentle-shell upgrade was not run: the machine-wide policy ${MACHINE} names "minimumReleaseAgeDays", "Enforce", which are not policy settings, so updates count as off; nothing was changed`,
    );
  });
});
