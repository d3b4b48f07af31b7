import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "pathe";
import { prefixLayout, type Layout } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { privateNpmCommand, ensurePiNpmCommand, piNpmCommandInPlace, withNpmCommand } from "../../src/installed/pi-settings";
import { ensureNpmShim, npmShimInPlace } from "../../src/install/runtime/npm-shim";
import { requires, type Capability } from "../support/capabilities";

let home: string;
let layout: Layout;
beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "gss-pi-settings-"));
  layout = prefixLayout({ home, platform: "linux", pins: productionPins });
  await fs.mkdir(join(layout.nodeDir, "gentle-shell"), { recursive: true });
  await fs.mkdir(join(layout.nodeDir, "lib", "node_modules", "npm", "bin"), { recursive: true });
  await fs.writeFile(layout.npmEntry, "//\n");
  await fs.writeFile(join(layout.nodeDir, "lib", "node_modules", "npm", "bin", "npm-cli.js"), "//\n");
  await fs.mkdir(layout.agent, { recursive: true });
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

const settings = () => join(layout.agent, "settings.json");

describe("privateNpmCommand", () => {
  it("is our node, our npm entry and npm's config and cache inside the prefix, without --prefix", () => {
    const cmd = privateNpmCommand(layout);
    expect(cmd).toEqual([
      layout.node,
      join(layout.nodeDir, "gentle-shell", "npm"),
      `--userconfig=${join(layout.prefix, "pnpm", "config", "npmrc")}`,
      `--globalconfig=${join(layout.prefix, "npm", "npmrc")}`,
      `--cache=${join(layout.prefix, "npm", "cache")}`,
      "--update-notifier=false",
    ]);
    expect(cmd.some((part) => part.startsWith("--prefix"))).toBe(false);
    // Pi names the package manager by basename: only the entry may read npm, pnpm or bun.
    expect(cmd.map((p) => basename(p)).filter((b) => ["npm", "pnpm", "bun"].includes(b))).toEqual(["npm"]);
  });
});

describe("the npmCommand key in the agent home's settings.json", () => {
  it("is written into a new settings.json", async () => {
    expect(await ensurePiNpmCommand(layout)).toBe("written");
    expect(JSON.parse(await fs.readFile(settings(), "utf8"))).toEqual({ npmCommand: privateNpmCommand(layout) });
  });

  it("keeps every other key and replaces an earlier value", async () => {
    await fs.writeFile(settings(), JSON.stringify({ defaultModel: "m", npmCommand: ["node", "/x/npm-cli.js", "--prefix", "/y"] }));
    expect(await ensurePiNpmCommand(layout)).toBe("written");
    expect(JSON.parse(await fs.readFile(settings(), "utf8"))).toEqual({ defaultModel: "m", npmCommand: privateNpmCommand(layout) });
  });

  it("leaves the bytes of a file that already holds the command", async () => {
    const text = `{"npmCommand":${JSON.stringify(privateNpmCommand(layout))},   "x": 1}`;
    await fs.writeFile(settings(), text);
    expect(await ensurePiNpmCommand(layout)).toBe("unchanged");
    expect(await fs.readFile(settings(), "utf8")).toBe(text);
  });

  it.each([
    ["not JSON", "{oops"],
    ["an array", "[1,2]"],
    ["a string", '"x"'],
  ])("leaves a file that is %s alone with a warning", async (_what, text) => {
    await fs.writeFile(settings(), text);
    const r = await ensurePiNpmCommand(layout);
    expect(r).toMatchObject({ warning: expect.stringMatching(/settings\.json is not/) });
    expect(await fs.readFile(settings(), "utf8")).toBe(text);
  });

  it("never writes through a link", async (ctx) => {
    requires(ctx, "symlinks");
    const target = join(home, "elsewhere.json");
    await fs.writeFile(target, "{}");
    await fs.symlink(target, settings());
    expect(await ensurePiNpmCommand(layout)).toMatchObject({ warning: expect.stringContaining("not a regular file") });
    expect(await fs.readFile(target, "utf8")).toBe("{}");
  });

  it("never touches the settings of an agent home that is a link, such as one to the user's ~/.pi/agent", async (ctx) => {
    requires(ctx, "symlinks");
    const userAgent = join(home, ".pi", "agent");
    await fs.mkdir(userAgent, { recursive: true });
    await fs.writeFile(join(userAgent, "settings.json"), '{"theme":"dark"}\n');
    await fs.rm(layout.agent, { recursive: true });
    await fs.symlink(userAgent, layout.agent);
    expect(await ensurePiNpmCommand(layout)).toEqual({
      warning: "~/.gentle-shell/agent is a link, so it is not Gentle Shell's own home and its settings.json was left alone",
    });
    expect(await fs.readFile(join(userAgent, "settings.json"), "utf8")).toBe('{"theme":"dark"}\n');
  });

  it("gives Pi no npmCommand, and says so, for a runtime without npm", async () => {
    await fs.rm(join(layout.nodeDir, "lib"), { recursive: true });
    expect(await ensurePiNpmCommand(layout)).toMatchObject({ warning: expect.stringContaining("has no npm entry for Pi") });
    await expect(fs.stat(settings())).rejects.toThrow();
  });

  it("is a pure decision underneath", () => {
    expect(withNpmCommand(null, ["a"])).toEqual({ text: '{\n  "npmCommand": [\n    "a"\n  ]\n}\n' });
    expect(withNpmCommand('{"npmCommand":["a"]}', ["a"])).toBeNull();
  });
});

describe("a launch's sync check that Pi's npm is in place (npmShimInPlace, piNpmCommandInPlace)", () => {
  const inPlace = () => npmShimInPlace(layout) && piNpmCommandInPlace(layout);
  const shimDir = () => join(layout.nodeDir, "gentle-shell");
  const ready = async () => {
    await ensureNpmShim(layout);
    expect(await ensurePiNpmCommand(layout)).not.toHaveProperty("warning");
  };
  const readyThen = (change: () => Promise<unknown>) => async () => {
    await ready();
    await change();
  };
  const cases: [string, () => Promise<void>, boolean, Capability[]][] = [
    ["nothing written yet", async () => undefined, false, []],
    ["both as the launcher writes them", ready, true, []],
    ["settings.json without the key", readyThen(async () => await fs.writeFile(settings(), '{"theme":"dark"}\n')), false, []],
    ["settings.json with another npmCommand", readyThen(async () => await fs.writeFile(settings(), '{"npmCommand":["npm"]}\n')), false, []],
    ["settings.json not JSON", readyThen(async () => await fs.writeFile(settings(), "{oops")), false, []],
    ["the npm entry edited", readyThen(async () => await fs.appendFile(layout.npmEntry, "// edited\n")), false, []],
    ["the entry's package.json group-writable", readyThen(async () => await fs.chmod(join(shimDir(), "package.json"), 0o664)), false, ["posix-modes"]],
    ["a runtime without npm", readyThen(async () => await fs.rm(join(layout.nodeDir, "lib"), { recursive: true })), false, []],
    [
      "the agent home a link to the user's own",
      async () => {
        await ready();
        const userAgent = join(home, ".pi", "agent");
        await fs.mkdir(join(home, ".pi"), { recursive: true });
        await fs.rename(layout.agent, userAgent);
        await fs.symlink(userAgent, layout.agent);
      },
      false,
      ["symlinks"],
    ],
    [
      "the entry's folder a link",
      async () => {
        await ready();
        await fs.rename(shimDir(), join(home, "moved"));
        await fs.symlink(join(home, "moved"), shimDir());
      },
      false,
      ["symlinks"],
    ],
  ];
  it.for(cases)("%s: in place only when ensureNpmShim and ensurePiNpmCommand would write nothing", async ([, arrange, expected, needs], ctx) => {
    requires(ctx, ...needs);
    await arrange();
    expect(inPlace()).toBe(expected);
    if (!expected) return;
    const before = await Promise.all([settings(), layout.npmEntry, join(shimDir(), "package.json")].map((file) => fs.stat(file)));
    await ensureNpmShim(layout);
    expect(await ensurePiNpmCommand(layout)).toBe("unchanged");
    const after = await Promise.all([settings(), layout.npmEntry, join(shimDir(), "package.json")].map((file) => fs.stat(file)));
    expect(after.map((s) => [s.ino, s.mtimeMs])).toEqual(before.map((s) => [s.ino, s.mtimeMs]));
  });
});
