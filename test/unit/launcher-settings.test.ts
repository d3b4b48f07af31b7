/**
 * The release channel a successful install records in the launcher's
 * config.json (spec: "Migration from a global install": "the release channel
 * is recorded and a main override this module made is removed"). Only an
 * absent channel or a main override is replaced; any other channel the user
 * chose stays, and every other setting is kept.
 */
import { describe, expect, it } from "vitest";
import { parseLauncherConfig, recordReleaseChannel } from "../../src/core/launcher-settings";

const record = (text: string | null) => recordReleaseChannel(parseLauncherConfig(text));

describe("recordReleaseChannel", () => {
  it("records release where no channel is set, keeping every other setting", () => {
    expect(record(null)).toBe('{\n  "channel": "release"\n}\n');
    expect(JSON.parse(record('{"theme":"rose","channel":null}')!)).toEqual({ theme: "rose", channel: "release" });
  });

  it("replaces a main override", () => {
    expect(JSON.parse(record('{"skippedStartupRelease":"4.1.0","channel":"main"}')!)).toEqual({ skippedStartupRelease: "4.1.0", channel: "release" });
  });

  it("writes nothing when the channel already says release", () => {
    expect(record('{"channel":"release"}')).toBeNull();
  });

  it("never replaces another channel: beta, a pre-release tag, or a value that is not text", () => {
    for (const channel of ["beta", "next", "Main", "", 1, true, { name: "main" }]) {
      expect(record(JSON.stringify({ channel, theme: "rose" })), JSON.stringify(channel)).toBeNull();
    }
  });
});
