/**
 * Careful writes and reads (issue 14): the prefix's folders are created and
 * written through only after an lstat of each component (ensureOwnDir), the
 * steps that create bin/, pnpm/config/, runtime/, gentle-ai/ and
 * config/gentle-ai/ refuse a link there with a sentence naming it and leave
 * its target untouched, tmp/ is removed only when it is a real folder of ours,
 * and a folder source's files are read without following links. Real files
 * and real links in a scratch folder.
 */
import { describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { prefixLayout } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { ensureOwnDir, removeOwnFolder } from "../../src/io/own-dir";
import { ensureLauncher } from "../../src/install/launcher";
import { writeNpmrcAuth } from "../../src/install/npm-settings";
import { ensureRuntimes } from "../../src/install/runtime/index";
import { fetchArtifact, fetchBytes } from "../../src/install/artifact-fetch";
import { openBundle } from "../../src/install/offline/open";
import { scratchDir } from "../support/scratch";
import { testHost } from "../support/host";

async function setup(links: string[]) {
  const dir = scratchDir("gss-owndir-");
  const home = join(dir, "home");
  const layout = prefixLayout({ home, platform: "linux", pins: productionPins });
  await fs.mkdir(layout.prefix, { recursive: true, mode: 0o700 });
  const target = join(dir, "elsewhere");
  await fs.mkdir(target);
  await fs.writeFile(join(target, "keep.txt"), "the user's\n");
  for (const rel of links) {
    await fs.mkdir(join(layout.prefix, rel, ".."), { recursive: true });
    await fs.symlink(target, join(layout.prefix, rel));
  }
  const untouched = async () => expect((await fs.readdir(target)).sort()).toEqual(["keep.txt"]);
  return { dir, layout, target, untouched };
}

describe("ensureOwnDir", () => {
  it("creates each missing component with the mode asked for, whatever the umask", async () => {
    const { layout } = await setup([]);
    const old = process.umask(0o000);
    try {
      expect(await ensureOwnDir(layout.prefix, layout.pnpm.config, 0o700)).toBe("created");
    } finally {
      process.umask(old);
    }
    expect((await fs.stat(layout.pnpm.home)).mode & 0o777).toBe(0o700);
    expect((await fs.stat(layout.pnpm.config)).mode & 0o777).toBe(0o700);
    expect(await ensureOwnDir(layout.prefix, layout.pnpm.config, 0o700)).toBe("present");
  });

  for (const rel of ["bin", "config", "gentle-ai", "config/gentle-ai", "pnpm"]) {
    it(`refuses a link at ${rel}/ and at every folder below it, naming the link`, async () => {
      const { layout, untouched } = await setup([rel]);
      const link = join(layout.prefix, rel);
      await expect(ensureOwnDir(layout.prefix, join(link, "deeper"))).rejects.toThrow(
        `${link} is a link, not a folder of Gentle Shell's; nothing was written through it`,
      );
      await expect(ensureOwnDir(layout.prefix, link)).rejects.toThrow(`${link} is a link`);
      await untouched();
    });
  }

  it("refuses a file where a folder must be, and a path outside the prefix", async () => {
    const { layout, dir } = await setup([]);
    await fs.writeFile(layout.bin, "");
    await expect(ensureOwnDir(layout.prefix, layout.bin)).rejects.toThrow(`${layout.bin} is not a folder, not a folder of Gentle Shell's`);
    await expect(ensureOwnDir(layout.prefix, join(dir, "outside"))).rejects.toThrow("is not inside");
  });
});

describe("the install steps over a link in the prefix", () => {
  it("the launcher step refuses a linked bin/ and writes nothing into its target", async () => {
    const { layout, untouched } = await setup(["bin"]);
    await expect(ensureLauncher(layout)).rejects.toThrow(`${layout.bin} is a link`);
    await untouched();
  });

  it("the npm settings step refuses a linked pnpm/ and a linked pnpm/config/", async () => {
    for (const rel of ["pnpm", "pnpm/config"]) {
      const { layout, untouched } = await setup([rel]);
      await expect(writeNpmrcAuth(layout, "registry=http://127.0.0.1:9/\n")).rejects.toThrow(`${join(layout.prefix, rel)} is a link`);
      await untouched();
    }
  });

  it("the runtime step refuses a linked runtime/ before any download", async () => {
    const { layout, untouched } = await setup(["runtime"]);
    const source = { kind: "folder" as const, root: join(layout.home, "no-such-source") };
    await expect(
      ensureRuntimes({ http: testHost().http, layout, pins: productionPins, source, target: "linux-x64", env: {} }, { pnpmSource: source }),
    ).rejects.toThrow(`${layout.runtime} is a link`);
    await untouched();
  });
});

describe("removing tmp/", () => {
  it("removes a real folder of ours with what it holds, and keeps a link there with its target", async () => {
    const real = await setup([]);
    await fs.mkdir(join(real.layout.tmp, "inner"), { recursive: true });
    await fs.writeFile(join(real.layout.tmp, "inner", "f"), "x");
    expect(await removeOwnFolder(real.layout.tmp)).toBe("removed");
    await expect(fs.lstat(real.layout.tmp)).rejects.toThrow();

    const linked = await setup(["tmp"]);
    expect(await removeOwnFolder(linked.layout.tmp)).toBe("kept");
    expect((await fs.lstat(linked.layout.tmp)).isSymbolicLink()).toBe(true);
    await linked.untouched();
  });
});

describe("a folder source is read without following links", () => {
  async function source() {
    const dir = scratchDir("gss-source-");
    const root = join(dir, "source");
    const outside = join(dir, "outside");
    await fs.mkdir(join(root, "node"), { recursive: true });
    await fs.mkdir(outside);
    await fs.writeFile(join(outside, "SHA256SUMS"), "0".repeat(64) + "  x\n");
    await fs.writeFile(join(outside, "a.bin"), "bytes");
    const into = join(dir, "into");
    await fs.mkdir(into);
    return { root, outside, into, src: { kind: "folder" as const, root } };
  }

  it("refuses a text file that is a link, and a folder on its way that is a link", async () => {
    const { root, outside, src } = await source();
    await fs.symlink(join(outside, "SHA256SUMS"), join(root, "SHA256SUMS"));
    await expect(fetchBytes(testHost().http, src, "SHA256SUMS", "SHA256SUMS", 1024)).rejects.toThrow(
      `SHA256SUMS in ${root} is a link; a folder source is read without following links`,
    );
    await fs.symlink(outside, join(root, "linked"));
    await expect(fetchBytes(testHost().http, src, "linked/SHA256SUMS", "SHA256SUMS", 1024)).rejects.toThrow(
      `${join(root, "linked")} in the source folder ${root} is a link`,
    );
    await fs.copyFile(join(outside, "SHA256SUMS"), join(root, "node", "SHA256SUMS"));
    expect((await fetchBytes(testHost().http, src, "node/SHA256SUMS", "SHA256SUMS", 1024)).toString()).toContain("0000");
  });

  it("refuses an artifact that is a link, leaving nothing in the folder it was fetched into", async () => {
    const { root, outside, into, src } = await source();
    await fs.symlink(join(outside, "a.bin"), join(root, "node", "a.bin"));
    const expected = { name: "the artifact", sha256: "0".repeat(64), maxBytes: 1024 };
    await expect(fetchArtifact(testHost().http, src, "node/a.bin", into, expected)).rejects.toThrow(`the artifact in ${root} is a link`);
    expect(await fs.readdir(into)).toEqual([]);
  });

  it("refuses an offline bundle whose manifest is a link", async () => {
    const { root, outside } = await source();
    await fs.writeFile(join(outside, "offline-bundle.json"), "{}");
    await fs.symlink(join(outside, "offline-bundle.json"), join(root, "offline-bundle.json"));
    await expect(openBundle(root, "linux-x64")).rejects.toThrow("is a link; a folder source is read without following links");
  });
});
