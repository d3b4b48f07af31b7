import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { prefixLayout, type Platform } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import type { Env } from "../../src/core/environment";
import { privateChildEnv, privateSetupEnv, gentleAiIsolationEnv } from "../../src/core/environment";
import { PrivateInstallError, NoActiveVersionError, prefixAsInstalled, resolvePrivateInstall, type PrivateInstall } from "../../src/installed/private-install";
import { classifyLaunch, PI_SUBCOMMANDS, piArguments } from "../../src/core/pi-launch";
import { activateVersion } from "../../src/install/activate";
import { requires, shortName } from "../support/capabilities";

let home: string;
const id = "4.1.0-1.6.0";
const piPkg = "@earendil-works/pi-coding-agent";
// The layout this machine's installs have: current is a relative link on POSIX, a pointer file on Windows.
const machine: Platform = process.platform === "win32" ? "win32" : "linux";
/** The home resolvePrivateInstall reads: HOME on POSIX, USERPROFILE on Windows. */
const homeEnv = (): Env => (machine === "win32" ? { USERPROFILE: home } : { HOME: home });
/** What the engine's Host gives resolvePrivateInstall: this environment, the platform, the home and the pins. */
const on = (env: Env, platform: Platform = machine) => ({ env, platform, home, pins: productionPins });

/**
 * A finished version that current names, and the engine path its launcher
 * runs: through current on POSIX, versions\<id> on Windows (current is a
 * pointer file there, never a folder).
 */
async function version(pi = "1.6.0", marker = id, platform: Platform = machine) {
  const layout = prefixLayout({ home, platform, pins: productionPins });
  const dir = join(layout.versions, id);
  await fs.mkdir(join(dir, ".gentle-shell"), { recursive: true });
  await fs.writeFile(join(dir, ".gentle-shell-version"), marker + "\n");
  await fs.writeFile(join(dir, ".gentle-shell", "engine.cjs"), "");
  await fs.writeFile(join(dir, "package.json"), JSON.stringify({ dependencies: { [piPkg]: "1.6.0", "gentle-pi": "4.1.0" } }));
  await fs.mkdir(join(dir, "node_modules", piPkg, "dist", "bundle"), { recursive: true });
  await fs.writeFile(join(dir, "node_modules", piPkg, "package.json"), JSON.stringify({ version: pi, bin: { pi: "dist/bundle/cli.js" } }));
  await fs.writeFile(join(dir, "node_modules", piPkg, "dist", "bundle", "cli.js"), "");
  await activateVersion(layout, id);
  const engine = platform === "win32" ? join(dir, ".gentle-shell", "engine.cjs") : join(layout.current, ".gentle-shell", "engine.cjs");
  return { layout, engine };
}

beforeEach(() => {
  // Its real name: the engine finds itself by its real path (never a short 8.3 name of the temporary folder).
  home = join(realpathSync.native(mkdtempSync(join(tmpdir(), "gss-bundled-"))));
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

describe("resolvePrivateInstall", () => {
  it("finds the version current names, its exact Pi and its gentle-pi", async () => {
    const { layout, engine } = await version();
    const install = await resolvePrivateInstall(engine, on(homeEnv()));
    expect(install).toMatchObject({ id, shell: "4.1.0", pi: "1.6.0", verifyOnly: false });
    expect(install.layout.prefix).toBe(layout.prefix);
    expect(install.piCli).toBe(join(layout.versions, id, "node_modules", piPkg, "dist", "bundle", "cli.js"));
    expect(install.gentlePiRoot).toBe(join(layout.versions, id, "node_modules", "gentle-pi"));
  });

  it("keeps the prefix as the installer named it when HOME is reached through a link", async (ctx) => {
    // A POSIX install's HOME, reached through a link.
    requires(ctx, "symlinks");
    const real = home;
    home = join(real, "..", `${real.split("/").pop()}-link`);
    await fs.symlink(real, home);
    try {
      const { layout } = await version("1.6.0", id, "linux");
      expect(layout.prefix).toBe(join(home, ".gentle-shell"));
      const install = await resolvePrivateInstall(join(layout.current, ".gentle-shell", "engine.cjs"), on({ HOME: home }, "linux"));
      expect(install.layout.prefix).toBe(join(home, ".gentle-shell"));
      expect(install.layout.bin).toBe(join(home, ".gentle-shell", "bin"));
      expect(install.versionDir).toBe(join(home, ".gentle-shell", "versions", id));
      expect(prefixAsInstalled(join(real, ".gentle-shell"), home, "linux")).toBe(join(home, ".gentle-shell"));
      // A prefix elsewhere than $HOME/.gentle-shell keeps its real path.
      expect(prefixAsInstalled(join(real, "other"), home, "linux")).toBe(join(real, "other"));
    } finally {
      await fs.rm(home);
      home = real;
    }
  });

  it("finds the install when the engine's path comes in 8.3 short names (RUNNER~1, as GitHub's TEMP has them)", async (ctx) => {
    requires(ctx, "short-names");
    // A long name is the one that has a short form; the user's profile is named in full, as USERPROFILE is.
    const root = home;
    ctx.onTestFinished(() => fs.rm(root, { recursive: true, force: true }));
    home = join(home, "a long profile name");
    await fs.mkdir(home);
    const { layout, engine } = await version();
    const short = shortName(engine);
    expect(short, "the engine has a short form").not.toBeNull();
    const install = await resolvePrivateInstall(short!, on(homeEnv()));
    expect(install).toMatchObject({ id, shell: "4.1.0", pi: "1.6.0" });
    // Every path it hands on is in the one (long) form.
    expect(install.versionDir).toBe(join(layout.versions, id));
    expect(install.piCli).toBe(join(layout.versions, id, "node_modules", piPkg, "dist", "bundle", "cli.js"));
  });

  it("stops, naming the version and the pinned Pi, when the installed Pi differs", async () => {
    const { engine } = await version("1.5.0");
    await expect(resolvePrivateInstall(engine, on(homeEnv()))).rejects.toThrow(
      new PrivateInstallError(
        `Gentle Shell 4.1.0 pins Pi 1.6.0, but versions/${id} holds Pi 1.5.0. Run gentle-shell upgrade or the Gentle Shell installer again.`,
      ),
    );
  });

  it("reads the exact-Pi check from Pi's package.json: a missing file is no Pi, bad JSON is refused", async () => {
    const { engine, layout } = await version();
    const pkgFile = join(layout.versions, id, "node_modules", piPkg, "package.json");
    const resolve = () => resolvePrivateInstall(engine, on(homeEnv()));
    await fs.rm(pkgFile);
    await expect(resolve()).rejects.toThrow(
      new PrivateInstallError(
        `Gentle Shell 4.1.0 pins Pi 1.6.0, but versions/${id} holds no Pi. Run gentle-shell upgrade or the Gentle Shell installer again.`,
      ),
    );
    await fs.writeFile(pkgFile, '{"version": "1.6.0",');
    await expect(resolve()).rejects.toThrow(
      new PrivateInstallError(`Pi's package.json in versions/${id} is not valid JSON. Run gentle-shell upgrade or the Gentle Shell installer again.`),
    );
    await fs.writeFile(pkgFile, "[]");
    await expect(resolve()).rejects.toThrow(/is not valid JSON/);
    // A folder at its place reads as no Pi.
    await fs.rm(pkgFile);
    await fs.mkdir(pkgFile);
    await expect(resolve()).rejects.toThrow(/holds no Pi/);
  });

  it("never follows Pi's package.json when it is a link, even to a file saying the pinned version", async (ctx) => {
    requires(ctx, "symlinks");
    const { engine, layout } = await version();
    const pkgFile = join(layout.versions, id, "node_modules", piPkg, "package.json");
    const elsewhere = join(home, "elsewhere.json");
    await fs.writeFile(elsewhere, JSON.stringify({ version: "1.6.0", bin: { pi: "dist/bundle/cli.js" } }));
    await fs.rm(pkgFile);
    await fs.symlink(elsewhere, pkgFile);
    await expect(resolvePrivateInstall(engine, on(homeEnv()))).rejects.toThrow(
      new PrivateInstallError(`Pi's package.json in versions/${id} is a link, not a file`),
    );
  });

  it("follows pnpm's link to Pi inside the version folder, never one leading out of it", async (ctx) => {
    requires(ctx, "symlinks");
    const { engine, layout } = await version();
    const dir = join(layout.versions, id);
    const linked = join(dir, "node_modules", ".pnpm", "pi@1.6.0", "node_modules", piPkg);
    await fs.mkdir(join(linked, ".."), { recursive: true });
    await fs.rename(join(dir, "node_modules", piPkg), linked);
    await fs.symlink(linked, join(dir, "node_modules", piPkg));
    const install = await resolvePrivateInstall(engine, on(homeEnv()));
    expect(install.pi).toBe("1.6.0");
    // The same Pi, reached through a link that leaves the version folder, is refused.
    const outside = join(home, "outside-pi");
    await fs.rename(linked, outside);
    await fs.rm(join(dir, "node_modules", piPkg));
    await fs.symlink(outside, join(dir, "node_modules", piPkg));
    await expect(resolvePrivateInstall(engine, on(homeEnv()))).rejects.toThrow(new PrivateInstallError(`Pi in versions/${id} lies outside the version folder`));
  });

  it("is not bundled for an unfinished version or one current does not name", async () => {
    const { engine, layout } = await version("1.6.0", `installing ${id} 1`);
    // current names an unfinished folder: no version is active (the engine then prints the launcher's own lines).
    await expect(resolvePrivateInstall(engine, on(homeEnv()))).rejects.toThrow(new NoActiveVersionError(`versions/${id} is not a finished install`));
    const direct = join(layout.versions, id, ".gentle-shell", "engine.cjs");
    await fs.rm(layout.current);
    const unnamed = await resolvePrivateInstall(direct, on(homeEnv())).catch((error: Error) => error);
    expect(unnamed).toBeInstanceOf(PrivateInstallError);
    expect(unnamed).not.toBeInstanceOf(NoActiveVersionError);
    expect((unnamed as Error).message).toBe(`versions/${id} is not a finished install`);
    await fs.writeFile(join(layout.versions, id, ".gentle-shell-version"), `${id}\n`);
    await expect(resolvePrivateInstall(direct, on(homeEnv()))).rejects.toThrow(/current does not name/);
    // GENTLE_SHELL_VERIFY_VERSION lets exactly that id through, marked verify-only.
    const verified = await resolvePrivateInstall(direct, on({ ...homeEnv(), GENTLE_SHELL_VERIFY_VERSION: id }));
    expect(verified.verifyOnly).toBe(true);
  });
});

describe("privateChildEnv", () => {
  const install = {
    layout: prefixLayout({ home: "/h", platform: "linux", pins: productionPins }),
    piCli: "/h/.gentle-shell/versions/x/cli.js",
  } as PrivateInstall;

  it("keeps the user's environment and adds only Gentle Shell's own variables", () => {
    const env = privateChildEnv(install, {
      PATH: "/usr/bin",
      npm_config_registry: "https://r.test/",
      GENTLE_SHELL_PI: "/other/pi",
      // The launcher check's variables (upgrade step 5) never reach Pi.
      GENTLE_SHELL_VERIFY_VERSION: "x",
      GENTLE_SHELL_PI_CHECKED: "x",
      GENTLE_SHELL_USER_NODE_OPTIONS: "--max-old-space-size=4096",
      GENTLE_PI_CONFIG_HOME: "/mine",
    });
    expect(env).toEqual({
      PATH: "/usr/bin",
      npm_config_registry: "https://r.test/",
      NODE_OPTIONS: "--max-old-space-size=4096",
      GENTLE_PI_CONFIG_HOME: "/mine",
      // Subagents trust the system's certificate store as Pi does: by Node's option, not a variable.
      GENTLE_PI_AGENTS_PI: `/h/.gentle-shell/runtime/node-24.21.0/bin/node --use-system-ca /h/.gentle-shell/versions/x/cli.js`,
      PI_SKIP_VERSION_CHECK: "1",
      GENTLE_SHELL_PREFIX: "/h/.gentle-shell",
      PI_CODING_AGENT_DIR: "/h/.gentle-shell/agent",
      GENTLE_PI_AGENT_HOME: "/h/.gentle-shell/agent",
    });
  });

  it("hands Pi no NODE_USE_SYSTEM_CA of ours: the launcher's (its marker says so) is taken away, the user's own stays", () => {
    // As the launcher starts the engine when the user set none: Pi's children (the agent's shell) never see it.
    const launched = privateChildEnv(install, { PATH: "/usr/bin", NODE_USE_SYSTEM_CA: "1", GENTLE_SHELL_SYSTEM_CA: "1" });
    expect(launched).not.toHaveProperty("NODE_USE_SYSTEM_CA");
    expect(launched).not.toHaveProperty("GENTLE_SHELL_SYSTEM_CA");
    expect(privateChildEnv(install, {})).not.toHaveProperty("NODE_USE_SYSTEM_CA");
    // The user's value, 0 or 1, is theirs: it stays, and subagents get no option that would override a 0.
    for (const value of ["0", "1"]) {
      const own = privateChildEnv(install, { NODE_USE_SYSTEM_CA: value });
      expect(own.NODE_USE_SYSTEM_CA).toBe(value);
      expect(own.GENTLE_PI_AGENTS_PI).toBe("/h/.gentle-shell/runtime/node-24.21.0/bin/node /h/.gentle-shell/versions/x/cli.js");
    }
    // Windows keeps variable names in any case.
    const win = { ...install, layout: prefixLayout({ home: "C:/Users/a", platform: "win32", pins: productionPins, windowsPrefix: "C:/p" }) } as PrivateInstall;
    expect(privateChildEnv(win, { Node_Use_System_CA: "1", GENTLE_SHELL_SYSTEM_CA: "1" })).not.toHaveProperty("Node_Use_System_CA");
    expect(privateChildEnv(win, { Node_Use_System_CA: "0" }).Node_Use_System_CA).toBe("0");
  });

  it("setup, Pi's environment with our PATH and Gentle AI's isolation, gets no NODE_USE_SYSTEM_CA of ours either", () => {
    const versioned = { ...install, versionDir: "/h/.gentle-shell/versions/x" } as PrivateInstall;
    expect(privateSetupEnv(versioned, { NODE_USE_SYSTEM_CA: "1", GENTLE_SHELL_SYSTEM_CA: "1" }, false)).not.toHaveProperty("NODE_USE_SYSTEM_CA");
  });

  it("leaves GENTLE_PI_AGENTS_PI unset when a path holds a space, and keeps an ENGRAM_BIN the user set (the Engram decision comes on top)", () => {
    const spaced = { ...install, layout: prefixLayout({ home: "/h o", platform: "linux", pins: productionPins }) } as PrivateInstall;
    const env = privateChildEnv(spaced, { GENTLE_PI_AGENTS_PI: "x y", ENGRAM_BIN: "/my/engram" });
    expect(env).not.toHaveProperty("GENTLE_PI_AGENTS_PI");
    expect(env.ENGRAM_BIN).toBe("/my/engram");
  });

  it("gives Pi no GENTLE_AI_* variable; only setup gets Gentle AI's isolation", () => {
    const env = privateChildEnv(install, { HOME: "/h" });
    expect(Object.keys(env).filter((k) => k.startsWith("GENTLE_AI_"))).toEqual([]);
    const setup = privateSetupEnv({ ...install, versionDir: "/h/.gentle-shell/versions/x" } as PrivateInstall, { PATH: "/usr/bin" }, false);
    expect(setup.PATH).toBe("/h/.gentle-shell/runtime/node-24.21.0/bin:/h/.gentle-shell/versions/x/node_modules/.bin:/usr/bin");
    // The spec's table, "Isolation from the user's Gentle AI": setup gets these, in the prefix.
    expect(setup).toMatchObject({
      GENTLE_AI_HOME: "/h/.gentle-shell/gentle-ai",
      GENTLE_AI_PI_CONFIG_DIR: "/h/.gentle-shell/config/gentle-ai",
      GENTLE_AI_NO_SELF_UPDATE: "1",
      GENTLE_PI_CONFIG_HOME: "/h/.gentle-shell/config",
    });
    expect(setup).not.toHaveProperty("GENTLE_AI_ENGRAM_BIN");
    // From setupEnvironment (the installer's setup step, first-use setup), whose PATH already starts with them: once.
    const front = "/h/.gentle-shell/runtime/node-24.21.0/bin:/h/.gentle-shell/versions/x/node_modules/.bin";
    const again = privateSetupEnv({ ...install, versionDir: "/h/.gentle-shell/versions/x" } as PrivateInstall, { PATH: `${front}:/usr/bin` }, false);
    expect(again.PATH).toBe(`${front}:/usr/bin`);
    expect(gentleAiIsolationEnv(install.layout, true).GENTLE_AI_ENGRAM_BIN).toBe("/h/.gentle-shell/runtime/engram-3.5.2/engram");
  });
});

describe("piArguments", () => {
  it("loads the version's gentle-pi into a session, and leaves Pi's own subcommands alone", () => {
    const install = { gentlePiRoot: "/v/node_modules/gentle-pi" };
    expect(piArguments(install, classifyLaunch(["-p", "hi"], {}))).toEqual(["--extension", "/v/node_modules/gentle-pi", "-p", "hi"]);
    expect(piArguments(install, classifyLaunch([], {}))).toEqual(["--extension", "/v/node_modules/gentle-pi"]);
    // Pi's own subcommands as Pi's docs/cli.md lists them: the package commands, config, auth and mcp.
    const piSubcommands = ["install", "remove", "uninstall", "update", "list", "config", "auth", "mcp"];
    expect(PI_SUBCOMMANDS).toEqual(new Set(piSubcommands));
    for (const sub of piSubcommands) {
      expect(piArguments(install, classifyLaunch([sub, "x"], {}))).toEqual([sub, "x"]);
    }
  });
});
