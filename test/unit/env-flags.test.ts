/**
 * PI_OFFLINE has one reading (src/core/env-flags.ts), Pi's own: every reader
 * of the launcher (the startup offer, first-use setup, Pi's tools, each
 * through the launch's classification) takes a value as offline exactly when
 * Pi does. The rule against the real Pi's
 * functions is test/integration/pi-env-flags-real.test.ts's.
 */
import { describe, expect, it } from "vitest";
import { piEnvFlag, piOfflineByEnv } from "../../src/core/env-flags";
import { classifyLaunch } from "../../src/core/pi-launch";

const ON = ["1", "true", "TRUE", "True", "yes", "YES"];
const OFF = [undefined, "", "0", "false", "no", "on", "ON", "off", " 1", "1 ", "01", "2", "y", "true "];

describe("an environment flag of Pi's", () => {
  it("is on for 1, true or yes (any case), off for anything else", () => {
    for (const value of ON) expect(piEnvFlag(value), value).toBe(true);
    for (const value of OFF) expect(piEnvFlag(value), JSON.stringify(value)).toBe(false);
  });
});

describe("PI_OFFLINE is read the same by every reader", () => {
  const env = (value: string | undefined): Record<string, string> => (value === undefined ? {} : { PI_OFFLINE: value });
  it("offline for each value Pi takes as offline: no offer, no first-use setup, no tool download", () => {
    for (const value of ON) {
      const launch = classifyLaunch([], env(value), true);
      expect(piOfflineByEnv(env(value)), value).toBe(true);
      expect(launch.offline, value).toBe(true);
      expect(launch.offer, value).toBe(false);
      expect(launch.firstUse, value).toBe(false);
    }
  });

  it("online for every other value, PI_OFFLINE=on among them, as Pi is", () => {
    for (const value of OFF) {
      const launch = classifyLaunch([], env(value), true);
      expect(piOfflineByEnv(env(value)), JSON.stringify(value)).toBe(false);
      expect(launch.offline, JSON.stringify(value)).toBe(false);
      expect(launch.offer, JSON.stringify(value)).toBe(true);
      expect(launch.firstUse, JSON.stringify(value)).toBe(true);
    }
  });
});
