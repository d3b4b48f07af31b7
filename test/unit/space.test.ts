/**
 * The space an install needs (core/space-need.ts): only sizes the pins or the
 * signed manifest record count, each archive twice (itself and as much again
 * unpacked); a pin without a size is named as unknown, never guessed; the
 * sentences carry the folder and both numbers.
 */
import { describe, expect, it } from "vitest";
import { diskFull, isDiskFull, notEnoughSpace, showBytes, spaceLine, spaceNeeded } from "../../src/core/space-need";
import { productionPins } from "../../src/pins/production";
import type { Pins } from "../../src/pins/types";

const pins: Pins = {
  ...productionPins,
  node: {
    ...productionPins.node,
    archives: { ...productionPins.node.archives, "linux-x64": { ...productionPins.node.archives["linux-x64"]!, size: 50_000_000 } },
  },
};

describe("spaceNeeded", () => {
  it("counts a sized archive twice and names the unsized pins and the release's packages as unknown", () => {
    const need = spaceNeeded({ pins, target: "linux-x64" });
    expect(need.parts).toEqual([{ name: "Node 24.21.0", bytes: 100_000_000 }]);
    expect(need.bytes).toBe(100_000_000);
    expect(need.unknown).toEqual(["pnpm 11.1.1", "the release's assets", "the release's packages"]);
  });

  it("leaves out runtimes already installed, takes Go only when asked, and adds the release's assets once known", () => {
    const need = spaceNeeded({
      pins,
      target: "win-x64",
      go: true,
      present: { node: true, pnpm: true },
      releaseAssets: { a: { size: 1_000 }, b: { size: 2_000 } },
    });
    const go = productionPins.go.archives["win-x64"]!.size!;
    expect(need.parts).toEqual([
      { name: "Go 1.25.14", bytes: 2 * go },
      { name: "the release's assets", bytes: 3_000 },
    ]);
    expect(need.unknown).toEqual(["the release's packages"]);
    expect(spaceNeeded({ pins, target: "linux-x64", go: false }).parts.map((p) => p.name)).not.toContain("Go 1.25.14");
  });

  it("knows nothing for production Linux pins, whose Node and pnpm sizes are not recorded, and says so", () => {
    const need = spaceNeeded({ pins: productionPins, target: "linux-x64" });
    expect(need.bytes).toBe(0);
    expect(spaceLine(need, 5_000_000_000, "~/.gentle-shell")).toBe(
      "Space: not known in advance (no size is recorded for Node 24.21.0, pnpm 11.1.1, the release's assets and the release's packages), on the disk of ~/.gentle-shell; 5000 MB free there.",
    );
  });
});

describe("the sentences", () => {
  const need = spaceNeeded({ pins, target: "linux-x64" });

  it("the plan line and the early stop carry both numbers", () => {
    expect(spaceLine(need, null, "~/.gentle-shell")).toContain("at least 100 MB (Node 24.21.0), plus pnpm 11.1.1");
    expect(spaceLine(need, null, "~/.gentle-shell")).toContain("the free space there could not be read");
    expect(notEnoughSpace(need, 63_000_000, "~/.gentle-shell")).toBe(
      "There is not enough space for Gentle Shell in ~/.gentle-shell: 63 MB free, at least 100 MB needed (Node 24.21.0 100 MB); nothing was downloaded, so free some space and run the installer again.",
    );
  });

  it("a full disk names the folder, what is free now and more than what was free at the start", () => {
    expect(diskFull({ where: "~/.gentle-shell", step: "version", free: 100_000, atStart: 241_000_000, need })).toBe(
      "The disk holding ~/.gentle-shell is full: the version step stopped at once and removed what it left unfinished, 0.1 MB is free now, and the install needs more than the 241 MB that were free when it began, so free some space and run the installer again.",
    );
    expect(diskFull({ where: "~/.gentle-shell", step: "runtime", free: null, atStart: null, need })).toContain("the install needs at least 100 MB");
    expect(diskFull({ where: "~/.gentle-shell", step: "runtime", free: null, atStart: null, need: null })).toContain("the install needs more than was free");
  });

  it("shows whole MB above 10 MB and one decimal below", () => {
    expect(showBytes(97_540_000)).toBe("98 MB");
    expect(showBytes(4_200_000)).toBe("4.2 MB");
  });
});

describe("isDiskFull", () => {
  it("is true for ENOSPC and EDQUOT, in the error, its cause or its message, and false for other errors", () => {
    expect(isDiskFull(Object.assign(new Error("write failed"), { code: "ENOSPC" }))).toBe(true);
    expect(isDiskFull(Object.assign(new Error("write failed"), { code: "EDQUOT" }))).toBe(true);
    expect(isDiskFull(new Error("Node could not be downloaded: ENOSPC: no space left on device, write"))).toBe(true);
    expect(isDiskFull(new Error("outer", { cause: Object.assign(new Error("inner"), { code: "ENOSPC" }) }))).toBe(true);
    expect(isDiskFull(Object.assign(new Error("gone"), { code: "ENOENT" }))).toBe(false);
    expect(isDiskFull(null)).toBe(false);
  });
});
