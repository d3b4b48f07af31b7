/**
 * Where an install came from (src/install/remembered-source.ts): remembered once
 * the install passed, a folder by its full path, the official source as no
 * file at all, and read back by upgrade, setup, the Pi tools and status.
 */
import { promises as fs } from "node:fs";
import { resolve } from "node:path";
import { join } from "pathe";
import { beforeEach, describe, expect, it } from "vitest";
import { prefixLayout, type Layout } from "../../src/core/layout";
import { rememberedSource, rememberSource, sourceFile } from "../../src/install/remembered-source";
import { productionPins } from "../../src/pins/production";
import { has } from "../support/capabilities";
import { scratchDir } from "../support/scratch";

let layout: Layout;

beforeEach(async () => {
  const home = join(scratchDir("gss-source-"), "home");
  layout = prefixLayout({ home, platform: "linux", pins: productionPins });
  await fs.mkdir(layout.prefix, { recursive: true, mode: 0o700 });
});

describe("the remembered install source", () => {
  it("is nothing until an install remembers one", async () => {
    expect(await rememberedSource(layout)).toBeUndefined();
  });

  it("keeps a mirror URL as given, in a file only its owner reads", async () => {
    await rememberSource(layout, "https://mirror.test/gss/");
    expect(await rememberedSource(layout)).toBe("https://mirror.test/gss/");
    // The file's mode where the file system keeps POSIX modes (not on Windows).
    if (has("posix-modes")) expect((await fs.stat(sourceFile(layout))).mode & 0o777).toBe(0o600);
  });

  it("keeps a folder by its full path (the system's own form), so setup and upgrade find it from anywhere", async () => {
    await rememberSource(layout, "some/stick");
    expect(await rememberedSource(layout)).toBe(resolve("some/stick"));
  });

  it("forgets a remembered source when the install came from the official one", async () => {
    await rememberSource(layout, "https://mirror.test/gss/");
    await rememberSource(layout, "official");
    expect(await rememberedSource(layout)).toBeUndefined();
    await rememberSource(layout, undefined);
    expect(await rememberedSource(layout)).toBeUndefined();
  });
});
