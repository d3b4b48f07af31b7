/**
 * doctor shows what status shows (issue 47, items 2 and 3): the update
 * policy in force with its source, and the memory decision. Pure: the
 * checks from status's own report fields.
 */
import { describe, expect, it } from "vitest";
import { memoryCheck, updatesCheck } from "../../../src/commands/doctor/settings";
import { NOTICES } from "../../../src/installed/engram/decision";
import type { UpdatesInfo } from "../../../src/commands/status/updates";

const HOME = "/home/ana";
const locked: UpdatesInfo = {
  value: "off",
  from: "machine",
  where: "/etc/gentle-shell/policy.json",
  minimumReleaseAge: { minutes: 10080, setting: "7d", from: "machine", where: "/etc/gentle-shell/policy.json" },
  problem: null,
  machine: { where: "/etc/gentle-shell/policy.json", tier: "locked" },
};

describe("doctor's updates check", () => {
  it("names the policy in force and the file that sets it, ok", () => {
    const c = updatesCheck(locked);
    expect(c).toMatchObject({ id: "machine.updates", group: "machine", status: "ok" });
    expect(c.line).toMatch(/^updates: off, set by .*\/etc\/gentle-shell\/policy\.json.*minimumReleaseAge 7 days/);
  });

  it("the default is named as the default", () => {
    const c = updatesCheck({ value: "notify", from: "default", where: null, minimumReleaseAge: null, problem: null, machine: null });
    expect(c).toMatchObject({ status: "ok", line: "updates: notify (the default)" });
  });

  it("a policy source that cannot be read is a warning that says updates count as off, with what to do", () => {
    const c = updatesCheck({ ...locked, problem: '/etc/gentle-shell/policy.json has the unknown key "update"' });
    expect(c.status).toBe("warn");
    expect(c.line).toContain("so updates count as off");
    expect(c.repair).toMatchObject({ kind: "command" });
    expect(updatesCheck(null)).toMatchObject({ status: "warn", line: "the update policy could not be read, so updates count as off" });
  });
});

describe("doctor's memory check", () => {
  const probed = (reason: string, notice: string | null = null) => ({ probed: true as const, memory: "disabled" as const, reason, notice });

  it("memory allowed or starting next session is ok; the user's own policy is ok too", () => {
    expect(memoryCheck({ probed: true, memory: "allowed", reason: "reuse", notice: null }, HOME)).toMatchObject({
      status: "ok",
      line: expect.stringMatching(/^memory: allowed/),
    });
    expect(memoryCheck(probed("start-not-allowed"), HOME)).toMatchObject({ status: "ok", line: expect.stringContaining("starts with the next session") });
    expect(memoryCheck(probed("policy-disabled"), HOME)).toMatchObject({ status: "ok", line: "memory: off, as ENGRAM_STARTUP_POLICY=disabled says" });
  });

  it("memory kept off by something the user can change is a warning naming the command", () => {
    const marker = memoryCheck(probed("migration-marker"), HOME);
    expect(marker).toMatchObject({ status: "warn", line: expect.stringContaining("interrupted memory migration") });
    expect(marker.repair).toMatchObject({ kind: "command", sentence: expect.stringMatching(/^gentle-shell memory migrate/) });
    expect(memoryCheck(probed("newer-store"), HOME).repair?.sentence).toMatch(/^engram serve/);
    expect(memoryCheck(probed("core-missing"), HOME).repair?.sentence).toBe("gentle-shell setup");
    expect(memoryCheck(probed("unknown-listener"), HOME)).toMatchObject({ status: "warn", line: expect.stringContaining("127.0.0.1:7437") });
  });

  it("ENGRAM_BIN/ENGRAM_URL set is the user's choice (ok); an ENGRAM_STARTUP_POLICY that is neither value is a warning", () => {
    // The decision's own notices, as status hands them on.
    const explicit = memoryCheck(probed("explicit", NOTICES.explicit(["ENGRAM_URL"])), HOME);
    expect(explicit).toMatchObject({ status: "ok", line: "memory: yours (you set ENGRAM_URL, so Gentle Shell neither checks nor starts an Engram server)" });
    const invalid = memoryCheck(probed("explicit", NOTICES.invalidPolicy()), HOME);
    expect(invalid).toMatchObject({ status: "warn", repair: { kind: "command", sentence: "set ENGRAM_STARTUP_POLICY to allowed or disabled, or unset it" } });
  });
});
