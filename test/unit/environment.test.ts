import { describe, expect, it } from "vitest";
import { prefixLayout } from "../../src/core/layout";
import { offlinePnpmEnvironment, pnpmEnvironment, setupEnvironment, systemStoreOptions } from "../../src/core/environment";
import { productionPins } from "../../src/pins/production";

const posix = prefixLayout({ home: "/home/ana", platform: "linux", pins: productionPins });
const win = prefixLayout({ home: "C:/Users/ana", platform: "win32", pins: productionPins, windowsPrefix: "C:/Users/ana/AppData/Local/gentle-shell" });

const inherited = {
  HOME: "/home/ana",
  PATH: "/usr/bin:/bin",
  HTTPS_PROXY: "http://proxy.test:3128",
  NODE_OPTIONS: "--require /nonexistent",
  NODE_PATH: "/x",
  npm_config_registry: "http://evil.test/",
  NPM_CONFIG_USERCONFIG: "/tmp/u",
  pnpm_config_minimum_release_age: "5256000",
  PNPM_HOME: "/home/ana/.local/share/pnpm",
  COREPACK_ENABLE_STRICT: "1",
  XDG_CONFIG_HOME: "/home/ana/.config",
  XDG_DATA_HOME: "/home/ana/.local/share",
  XDG_RUNTIME_DIR: "/run/user/1000",
  XDG_DATA_DIRS: "/usr/local/share:/usr/share",
  XDG_CONFIG_DIRS: "/etc/xdg",
  XDG_SESSION_TYPE: "wayland",
  XDG_CURRENT_DESKTOP: "GNOME",
  NPM_TOKEN: "secret",
  OTHER_TOKEN: "kept-as-ordinary",
};

describe("systemStoreOptions", () => {
  it("is Node's --use-system-ca unless NODE_USE_SYSTEM_CA is set (any case on Windows), which would then decide", () => {
    expect(systemStoreOptions({}, "linux")).toEqual(["--use-system-ca"]);
    expect(systemStoreOptions({ NODE_USE_SYSTEM_CA: "0" }, "linux")).toEqual([]);
    expect(systemStoreOptions({ NODE_USE_SYSTEM_CA: "" }, "linux")).toEqual([]);
    expect(systemStoreOptions({ node_use_system_ca: "0" }, "linux")).toEqual(["--use-system-ca"]);
    expect(systemStoreOptions({ node_use_system_ca: "0" }, "win32")).toEqual([]);
  });
});

describe("pnpmEnvironment", () => {
  const env = pnpmEnvironment(posix, { env: inherited, npmrc: "//r.test/:_authToken=${NPM_TOKEN}\n" });

  it("puts our Node's folder first on PATH, then the user's PATH", () => {
    expect(env.PATH).toBe("/home/ana/.gentle-shell/runtime/node-24.21.0/bin:/usr/bin:/bin");
  });

  it("has pnpm trust the system's certificate store too; a value the user set (on Windows in any case) stays", () => {
    expect(env.NODE_USE_SYSTEM_CA).toBe("1");
    // Setup runs through the launcher, which gives the engine that trust with its marker (Pi's children never get it).
    expect(setupEnvironment(posix, { env: inherited, id: "4.1.0-1.6.0" })).not.toHaveProperty("NODE_USE_SYSTEM_CA");
    expect(pnpmEnvironment(posix, { env: { ...inherited, NODE_USE_SYSTEM_CA: "0" } }).NODE_USE_SYSTEM_CA).toBe("0");
    const windows = pnpmEnvironment(win, { env: { Path: "C:/Windows", node_use_system_ca: "0" } });
    expect(windows.NODE_USE_SYSTEM_CA).toBeUndefined();
    expect(windows.node_use_system_ca).toBe("0");
  });

  it("adds our Go's bin after Node when asked", () => {
    expect(pnpmEnvironment(posix, { env: inherited, go: true }).PATH).toBe(
      "/home/ana/.gentle-shell/runtime/node-24.21.0/bin:/home/ana/.gentle-shell/runtime/go/1.25.14/go/bin:/usr/bin:/bin",
    );
  });

  it("points every folder pnpm writes into the prefix", () => {
    expect(env).toMatchObject({
      PNPM_HOME: "/home/ana/.gentle-shell/pnpm",
      pnpm_config_store_dir: "/home/ana/.gentle-shell/pnpm/store",
      pnpm_config_cache_dir: "/home/ana/.gentle-shell/pnpm/cache",
      pnpm_config_state_dir: "/home/ana/.gentle-shell/pnpm/state",
      XDG_CONFIG_HOME: "/home/ana/.gentle-shell/pnpm/config",
      XDG_CACHE_HOME: "/home/ana/.gentle-shell/pnpm/cache",
      XDG_STATE_HOME: "/home/ana/.gentle-shell/pnpm/state",
      pnpm_config_npmrc_auth_file: "/home/ana/.gentle-shell/pnpm/config/npmrc",
      pnpm_config_pm_on_fail: "ignore",
      pnpm_config_runtime_on_fail: "ignore",
      pnpm_config_update_notifier: "false",
    });
  });

  it("drops inherited npm, pnpm, Corepack, NODE_OPTIONS, NODE_PATH and XDG folder settings", () => {
    for (const k of [
      "NODE_OPTIONS",
      "NODE_PATH",
      "npm_config_registry",
      "NPM_CONFIG_USERCONFIG",
      "pnpm_config_minimum_release_age",
      "COREPACK_ENABLE_STRICT",
      "XDG_DATA_HOME",
      "XDG_RUNTIME_DIR",
      "XDG_DATA_DIRS",
      "XDG_CONFIG_DIRS",
    ]) {
      expect(env, k).not.toHaveProperty(k);
    }
    expect(env.PNPM_HOME).not.toBe(inherited.PNPM_HOME);
    expect(env.XDG_CONFIG_HOME).not.toBe(inherited.XDG_CONFIG_HOME);
  });

  it("keeps an XDG variable that names no folder (the desktop session's)", () => {
    expect(env.XDG_SESSION_TYPE).toBe("wayland");
    expect(env.XDG_CURRENT_DESKTOP).toBe("GNOME");
    expect(pnpmEnvironment(posix, { env: { XDG_SESSION_ID: "3", XDG_SEAT: "seat0", XDG_VTNR: "2" } })).toMatchObject({
      XDG_SESSION_ID: "3",
      XDG_SEAT: "seat0",
      XDG_VTNR: "2",
    });
  });

  it("keeps a variable the prefix npmrc names as ${NAME}", () => {
    expect(env.NPM_TOKEN).toBe("secret");
    expect(pnpmEnvironment(posix, { env: { npm_token_x: "a", npm_x: "b" }, npmrc: "//r/:_authToken=${npm_x}\n" })).toMatchObject({ npm_x: "b" });
  });

  it("keeps HOME, proxies and everything else", () => {
    expect(env.HOME).toBe("/home/ana");
    expect(env.HTTPS_PROXY).toBe("http://proxy.test:3128");
    expect(env.OTHER_TOKEN).toBe("kept-as-ordinary");
  });

  it("sets no minimum release age, whatever the host says", () => {
    expect(Object.keys(env).filter((k) => /minimum_release_age/i.test(k))).toEqual([]);
  });

  it("on Windows keeps the Path key, uses ; and sets TEMP and TMP to tmp\\", () => {
    const w = pnpmEnvironment(win, { env: { Path: "C:/Windows/system32", SystemRoot: "C:/Windows" }, go: true });
    expect(w.Path).toBe(
      "C:/Users/ana/AppData/Local/gentle-shell/runtime/node-24.21.0;C:/Users/ana/AppData/Local/gentle-shell/runtime/go/1.25.14/go/bin;C:/Windows/system32",
    );
    expect(w.TEMP).toBe("C:/Users/ana/AppData/Local/gentle-shell/tmp");
    expect(w.TMP).toBe(w.TEMP);
    expect(w.SystemRoot).toBe("C:/Windows");
  });
});

describe("setupEnvironment", () => {
  const env = setupEnvironment(posix, {
    env: { ...inherited, GENTLE_BOOTSTRAP_X: "1", GENTLE_INSTALL_Y: "2", GENTLE_SHELL_USER_NODE_OPTIONS: "--require /nonexistent" },
    id: "4.1.0-1.6.0",
  });

  it("puts our Node, then the version's .bin, then the user's PATH", () => {
    expect(env.PATH).toBe("/home/ana/.gentle-shell/runtime/node-24.21.0/bin:/home/ana/.gentle-shell/versions/4.1.0-1.6.0/node_modules/.bin:/usr/bin:/bin");
  });

  it("gives npm its settings inside the prefix", () => {
    expect(env).toMatchObject({
      npm_config_userconfig: "/home/ana/.gentle-shell/pnpm/config/npmrc",
      npm_config_globalconfig: "/home/ana/.gentle-shell/npm/npmrc",
      npm_config_prefix: "/home/ana/.gentle-shell/npm/prefix",
      npm_config_cache: "/home/ana/.gentle-shell/npm/cache",
      npm_config_update_notifier: "false",
    });
  });

  it("drops inherited npm and pnpm settings, NODE_OPTIONS (also as the launcher keeps it), NODE_PATH and the wizard handoff, keeps XDG folders", () => {
    for (const k of [
      "NODE_OPTIONS",
      "GENTLE_SHELL_USER_NODE_OPTIONS",
      "NODE_PATH",
      "npm_config_registry",
      "NPM_CONFIG_USERCONFIG",
      "pnpm_config_minimum_release_age",
      "GENTLE_BOOTSTRAP_X",
      "GENTLE_INSTALL_Y",
    ]) {
      expect(env, k).not.toHaveProperty(k);
    }
    expect(env.XDG_CONFIG_HOME).toBe("/home/ana/.config");
  });
});

describe("offlinePnpmEnvironment", () => {
  it("names only the bundle's loopback registry, through its own npmrc, and no proxy of any spelling", () => {
    const env = offlinePnpmEnvironment(
      {
        PATH: "/usr/bin",
        HTTP_PROXY: "http://p:3128",
        https_proxy: "http://p:3128",
        NO_PROXY: "x",
        npm_config_https_proxy: "http://p",
        pnpm_config_proxy: "http://p",
      },
      "/p/tmp/offline-npmrc-1",
      "http://127.0.0.1:4000/",
    );
    expect(env).toEqual({ PATH: "/usr/bin", pnpm_config_npmrc_auth_file: "/p/tmp/offline-npmrc-1", pnpm_config_registry: "http://127.0.0.1:4000/" });
  });
});
