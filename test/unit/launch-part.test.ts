/**
 * The launch part's one question (src/engine/launch-part.ts): which launches
 * it hands to the full engine before anything changes. Pi's tools are read
 * from a real, empty prefix here: nothing placed and nothing under runtime/,
 * so an offline launch has nothing to place; a placement through the full
 * engine is test/e2e/pi-in-process.test.ts's.
 */
import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prefixLayout } from "../../src/core/layout";
import type { PrivateInstall } from "../../src/installed/private-install";
import { fullEngineReason } from "../../src/engine/launch-part";
import { classifyLaunch } from "../../src/core/pi-launch";
import type { Host } from "../../src/io/host";
import { productionPins } from "../../src/pins/production";

let root: string;
let install: PrivateInstall;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "gss-launch-part-"));
  const layout = prefixLayout({
    home: root,
    platform: "linux",
    pins: productionPins,
    prefix: join(root, ".gentle-shell"),
    windowsPrefix: join(root, ".gentle-shell"),
  });
  await fs.mkdir(layout.prefix, { recursive: true });
  const versionDir = join(layout.versions, "4.1.0-1.6.0");
  install = {
    layout,
    id: "4.1.0-1.6.0",
    versionDir,
    shell: "4.1.0",
    pi: "1.6.0",
    piRoot: join(versionDir, "node_modules", "@earendil-works", "pi-coding-agent"),
    piCli: join(versionDir, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "cli.js"),
    gentlePiRoot: join(versionDir, "node_modules", "gentle-pi"),
    verifyOnly: false,
  };
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

function host(env: Record<string, string>, terminal: boolean): Host {
  return { env, terminal, platform: "linux", home: root } as unknown as Host;
}

const reason = (args: string[], env: Record<string, string> = {}, terminal = false) =>
  fullEngineReason(install, host({ PI_OFFLINE: "1", ...env }, terminal), classifyLaunch(args, { PI_OFFLINE: "1", ...env }, terminal));

describe("which launches the launch part hands to the full engine", () => {
  it("keeps Pi's print mode, help, version and subcommands when nothing needs more", async () => {
    for (const args of [["-p", "hi"], ["--help"], ["--version"], ["--offline", "--version"], ["--mode", "json", "-p", "hi"], ["list"]]) {
      expect(await reason(args), args.join(" ")).toBeNull();
    }
    // A terminal alone changes nothing while Pi is offline: no offer, no first use.
    expect(await reason([], {}, true)).toBeNull();
  });

  it("hands over each of Shell's own commands, with or without a terminal", async () => {
    for (const args of [["upgrade"], ["upgrade", "--rollback"], ["update"], ["status", "--json"], ["setup"], ["memory", "migrate"], ["self-uninstall"]]) {
      expect(await reason(args), args.join(" ")).toBe("a command of Shell's");
    }
  });

  it("hands over a terminal launch that may show the startup offer, and one that may run first-use setup", async () => {
    // Online, in a terminal, a session: the offer may ask the registry.
    expect(await reason([], { PI_OFFLINE: "" }, true)).toBe("the startup offer");
    expect(await reason(["--continue"], { PI_OFFLINE: "" }, true)).toBe("the startup offer");
    // A prompt on the command line is no offer's launch, but may be first use's.
    expect(await reason(["fix the build"], { PI_OFFLINE: "" }, true)).toBe("first use");
    // Inside a Gentle Shell session neither applies.
    expect(await reason([], { PI_OFFLINE: "", GENTLE_SHELL_PREFIX: install.layout.prefix }, true)).toBeNull();
  });
});
