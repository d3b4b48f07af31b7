/**
 * `gentle-shell update` takes the newest stable Pi the active gentle-pi's
 * peer range allows (spec: Pi updates (S5)): the range from its installed
 * package.json (activePiPeer, piPeerRange), applied by newestStablePi.
 */
import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { afterEach, describe, expect, it } from "vitest";
import { prefixLayout } from "../../src/core/layout";
import { PI_PACKAGE } from "../../src/core/package-names";
import { piPeerRange } from "../../src/core/pi-peer-range";
import { newestStablePi } from "../../src/core/pi-update";
import { activePiPeer } from "../../src/install/pi-peer";
import { productionPins } from "../../src/pins/production";

const doc = { versions: { "1.6.0": {}, "1.7.0": {}, "2.0.0": {}, "2.1.0-beta.1": {} } };
const manifest = (peers?: Record<string, unknown>) => JSON.stringify({ name: "gentle-pi", version: "4.1.0", ...(peers ? { peerDependencies: peers } : {}) });

describe("newestStablePi within the active gentle-pi's peer range", () => {
  it("^1.6.0 takes 1.7.0, not the newer 2.0.0", () => {
    expect(newestStablePi(doc, { shell: "4.1.0", range: "^1.6.0" })).toBe("1.7.0");
  });

  it('"*" takes the newest stable, 2.0.0, never the pre-release', () => {
    expect(newestStablePi(doc, { shell: "4.1.0", range: "*" })).toBe("2.0.0");
  });

  it("passes over a deprecated release inside the range", () => {
    const withDeprecated = { versions: { ...doc.versions, "1.7.0": { deprecated: "broken" } } };
    expect(newestStablePi(withDeprecated, { shell: "4.1.0", range: "^1.6.0" })).toBe("1.6.0");
  });

  it("a range nothing stable satisfies is one sentence that says nothing was changed", () => {
    expect(() => newestStablePi(doc, { shell: "4.1.0", range: ">=3.0.0" })).toThrow(
      "no stable Pi release satisfies the active gentle-pi 4.1.0's peer range for Pi (>=3.0.0; the newest stable Pi is 2.0.0); nothing was changed",
    );
    // Only the pre-release is inside it: still none.
    expect(() => newestStablePi(doc, { shell: "4.1.0", range: "2.1.0-beta.1" })).toThrow(/no stable Pi release satisfies .*; nothing was changed$/);
  });
});

describe("piPeerRange", () => {
  it("is gentle-pi's peerDependencies entry for Pi", () => {
    expect(piPeerRange("4.1.0", manifest({ [PI_PACKAGE]: "^1.6.0", other: "^9" }))).toEqual({ shell: "4.1.0", range: "^1.6.0" });
  });

  it("allows any Pi when gentle-pi names no Pi peer", () => {
    expect(piPeerRange("4.1.0", manifest()).range).toBe("*");
    expect(piPeerRange("4.1.0", manifest({ other: "^9" })).range).toBe("*");
  });

  it("refuses, changing nothing, what it cannot read as a range", () => {
    expect(() => piPeerRange("4.1.0", null)).toThrow(
      "the Pi versions the active gentle-pi 4.1.0 allows are unknown: its package.json could not be read; nothing was changed",
    );
    expect(() => piPeerRange("4.1.0", "{")).toThrow(/is not valid JSON; nothing was changed$/);
    expect(() => piPeerRange("4.1.0", manifest({ [PI_PACKAGE]: "not a range!" }))).toThrow(
      'its peer range for Pi, "not a range!", is not a semver range; nothing was changed',
    );
    expect(() => piPeerRange("4.1.0", manifest({ [PI_PACKAGE]: 1 }))).toThrow(/is not a semver range/);
  });
});

describe("activePiPeer", () => {
  const roots: string[] = [];
  afterEach(async () => {
    for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
  });

  it("reads the range from versions/<id>/node_modules/gentle-pi/package.json", async () => {
    const root = mkdtempSync(join(tmpdir(), "gss-pi-peer-"));
    roots.push(root);
    const layout = prefixLayout({ home: root, platform: "linux", pins: productionPins });
    const id = "4.1.0-1.6.0";
    await expect(activePiPeer(layout, id, "4.1.0")).rejects.toThrow(/package.json could not be read; nothing was changed$/);
    const dir = join(layout.versions, id, "node_modules", "gentle-pi");
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(join(dir, "package.json"), manifest({ [PI_PACKAGE]: "~1.6.0" }));
    expect(await activePiPeer(layout, id, "4.1.0")).toEqual({ shell: "4.1.0", range: "~1.6.0" });
  });
});
