/**
 * The launcher's config.json as a migration records the release channel
 * (spec: "Migration from a global install": "After a successful install, the
 * release channel is recorded and a main override this module made is
 * removed"), on a real file system: what is kept, the modes whatever the
 * umask, and what is never replaced.
 */
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prefixLayout, type Layout } from "../../src/core/layout";
import { launcherConfigPath, recordChannel } from "../../src/install/launcher-config-file";
import { productionPins } from "../../src/pins/production";
import { scratchDir } from "../support/scratch";

let home: string;
let layout: Layout;
let umask: number;
const file = () => join(layout.config, "config.json");
const read = async (path = file()) => JSON.parse(await fs.readFile(path, "utf8"));
const mode = async (path: string) => (await fs.stat(path)).mode & 0o777;

beforeEach(async () => {
  umask = process.umask(0o002);
  home = join(scratchDir("gss-config-"), "Zoë's home");
  layout = prefixLayout({ home, platform: "linux", pins: productionPins });
  await fs.mkdir(layout.prefix, { recursive: true });
});
afterEach(() => {
  process.umask(umask);
});

describe("recording the release channel after a migration", () => {
  it("creates config/ (0700) and config.json (0600) under umask 002 when there is none", async () => {
    expect(await recordChannel(layout, {}, home)).toBeNull();
    expect(await read()).toEqual({ channel: "release" });
    expect(await mode(file())).toBe(0o600);
    expect(await mode(layout.config)).toBe(0o700);
  });

  it("replaces a main override and keeps every other setting and the file's mode", async () => {
    await fs.mkdir(layout.config, { recursive: true });
    await fs.writeFile(file(), '{"skippedStartupRelease":"4.1.0","channel":"main","theme":{"accent":"rose"}}\n', { mode: 0o640 });
    await fs.chmod(file(), 0o640);
    expect(await recordChannel(layout, {}, home)).toBeNull();
    expect(await read()).toEqual({ skippedStartupRelease: "4.1.0", channel: "release", theme: { accent: "rose" } });
    expect(await mode(file())).toBe(0o640);
  });

  it("leaves a file that already says release byte for byte as it is", async () => {
    await fs.mkdir(layout.config, { recursive: true });
    const text = '{ "channel": "release",   "x": 1 }';
    await fs.writeFile(file(), text);
    expect(await recordChannel(layout, {}, home)).toBeNull();
    expect(await fs.readFile(file(), "utf8")).toBe(text);
  });

  it("leaves a channel the user chose (beta) byte for byte as it is: only a main override is replaced", async () => {
    await fs.mkdir(layout.config, { recursive: true });
    const text = '{"channel":"beta","theme":"rose"}\n';
    await fs.writeFile(file(), text);
    expect(await recordChannel(layout, {}, home)).toBeNull();
    expect(await fs.readFile(file(), "utf8")).toBe(text);
  });

  it("writes where GENTLE_SHELL_CONFIG points, and makes no config/ in the prefix", async () => {
    const elsewhere = join(home, "my config.json");
    await fs.writeFile(elsewhere, '{"channel":"main"}');
    const env = { GENTLE_SHELL_CONFIG: elsewhere };
    expect(launcherConfigPath(layout, env)).toBe(elsewhere);
    expect(await recordChannel(layout, env, home)).toBeNull();
    expect(await read(elsewhere)).toEqual({ channel: "release" });
    await expect(fs.stat(layout.config)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it.each([
    ["not valid JSON", "{oops", "it is not valid JSON"],
    ["a JSON array", "[1,2]", "it is not a JSON object"],
  ])("never replaces a file that is %s: one sentence naming it, the text unchanged", async (_what, text, why) => {
    await fs.mkdir(layout.config, { recursive: true });
    await fs.writeFile(file(), text);
    const warning = await recordChannel(layout, {}, home);
    expect(warning).toBe(
      `~/.gentle-shell/config/config.json was left as it is because ${why}, so the release channel is not recorded there; fix or remove it if a global gentle-pi should follow releases too.`,
    );
    expect(await fs.readFile(file(), "utf8")).toBe(text);
  });

  it("never follows or replaces a link where config.json should be", async () => {
    await fs.mkdir(layout.config, { recursive: true });
    const target = join(home, "target.json");
    await fs.writeFile(target, '{"channel":"main"}');
    await fs.symlink(target, file());
    expect(await recordChannel(layout, {}, home)).toContain("because it is not a regular file");
    expect((await fs.lstat(file())).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(target, "utf8")).toBe('{"channel":"main"}');
  });

  it("a config/ that is a link is refused with a sentence, not a stack trace", async () => {
    const away = join(home, "away");
    await fs.mkdir(away);
    await fs.symlink(away, layout.config);
    const warning = await recordChannel(layout, {}, home);
    expect(warning).toMatch(
      /^Could not record the release channel in ~\/\.gentle-shell\/config\/config\.json \(.+\); Gentle Shell is installed and follows releases anyway\.$/,
    );
    expect(await fs.readdir(away)).toEqual([]);
  });
});
