/**
 * A version's module as upgrade steps 4-6 ask it (src/installed/module-session.ts),
 * against stand-in modules on the real Node 24.21.0: one that serves, one
 * from before serve, and ones that fail in each way a real one can. Each
 * stand-in logs every start and every request it reads, so the tests see how
 * often the module was started and what it was asked.
 */
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Layout } from "../../src/core/layout";
import { hostPlatform } from "../../src/core/machine";
import { openVersionModule } from "../../src/installed/module-session";
import { MODULE_FUNCTIONS } from "../../src/installed/internal";
import { has } from "../support/capabilities";
import { toolchain } from "../support/toolchain";

let node: string;
let dir: string;
let log: string;

beforeAll(async () => {
  // The engine's own Node flags need Node 24 (the Windows lane runs on it).
  node = has("posix-shell") ? await (await toolchain()).ensureNodeBinary() : process.execPath;
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gss-module-session-"));
  log = join(dir, "asked.log");
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/**
 * A stand-in module. MODE picks how it behaves:
 *   serve         serves; answers pi-version only once engram was asked too (so both must be asked at once),
 *                 and answers pi-version first
 *   old           predates serve: answers ensure-runtime, functions and ensure-launcher one per start
 *   refuse-engram serves; its engram answer is an error
 *   die           serves; dies on pi-version, saying why on stderr
 *   no-runtime    its serve fails before ready (its runtime)
 *   no-functions  serves, but without the functions the upgrade uses
 *   garbled       serves; answers pi-version with a line that is not JSON
 */
const STAND_IN = `
const fs = require("node:fs");
const log = (what) => fs.appendFileSync(process.env.LOG, JSON.stringify(what) + "\\n");
const args = process.argv.slice(2);
log(args);
const mode = process.env.MODE;
const say = (value) => process.stdout.write(JSON.stringify(value) + "\\n");
const functions = ["prefixLayout", "ensureRuntime", "ensureLauncher"];
const [flag, command] = args;
if (flag !== "--gentle-shell-engine-internal") process.exit(9);
if (command === "serve" && mode === "old") {
  process.stderr.write('gentle-shell: unknown internal command "serve"\\n');
  process.exit(2);
}
if (command === "serve" && mode === "no-runtime") {
  process.stderr.write("gentle-shell: the pinned Node could not be downloaded: the mirror did not answer\\n");
  process.exit(1);
}
if (command === "ensure-runtime") {
  say({ node: process.execPath, status: {}, functions, engine: "0.9.0", ...(args.includes("--pi-version") ? { piVersion: { code: 0, reported: "1.6.0", stderr: "" } } : {}), launcher: { script: "#!/bin/sh\\n", name: "gentle-shell" } });
  process.exit(0);
}
if (command === "functions") {
  say(mode === "no-functions" ? { functions: [], engine: "0.9.0" } : { functions, engine: "0.9.0" });
  process.exit(0);
}
if (command === "ensure-launcher") {
  say({ launcher: "/prefix/bin/gentle-shell", status: "written" });
  process.exit(0);
}
if (command !== "serve") process.exit(9);
say({ ready: true, node: process.execPath, functions: mode === "no-functions" ? [] : functions, engine: "1.0.0", launcher: { script: "#!/bin/sh\\necho hi\\n", name: "gentle-shell" } });
const asked = new Set();
let waitingPi = false;
const answer = (request) => {
  if (request === "engram") say(mode === "refuse-engram" ? { reply: "engram", error: "the Engram download did not match its pin" } : { reply: "engram", engram: "published" });
  if (request === "pi-version") say({ reply: "pi-version", piVersion: { code: 0, reported: "1.6.0", stderr: "" } });
  if (request === "ensure-launcher") say({ reply: "ensure-launcher", launcher: "/prefix/bin/gentle-shell", status: "written" });
};
let pending = "";
process.stdin.on("data", (chunk) => {
  pending += chunk;
  const lines = pending.split("\\n");
  pending = lines.pop();
  for (const request of lines) {
    log(request);
    asked.add(request);
    if (request === "pi-version" && mode === "garbled") {
      process.stdout.write("Pi 1.6.0 says hello\\n");
      continue;
    }
    if (request === "pi-version" && mode === "die") {
      process.stderr.write("gentle-shell: its Pi could not be started\\n");
      process.exit(1);
    }
    // pi-version waits for engram's request, and is answered before it.
    if (request === "pi-version" && !asked.has("engram")) { waitingPi = true; continue; }
    if (request === "engram" && waitingPi) { answer("pi-version"); waitingPi = false; }
    answer(request);
  }
});
process.stdin.on("end", () => { log("stdin ended"); });
`;

async function standIn(mode: string) {
  const engine = join(dir, "engine.cjs");
  await fs.writeFile(engine, STAND_IN);
  const layout = { node, platform: hostPlatform(process.platform) } as unknown as Layout;
  return {
    open: (piVersion = true) => openVersionModule(layout, engine, { ...process.env, MODE: mode, LOG: log }, { sourceArg: undefined, piVersion }),
    asked: async () =>
      (await fs.readFile(log, "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as string | string[]),
  };
}

describe("a version's module, started once (serve)", () => {
  it("answers its engine, Node and launcher when ready, and what it is asked at once, each answer to its own request", async () => {
    const fake = await standIn("serve");
    const module = await fake.open();
    expect(module.engineVersion).toBe("1.0.0");
    expect(module.node).toBe(node);
    expect(module.launcher).toEqual({ script: "#!/bin/sh\necho hi\n", name: "gentle-shell" });
    expect(module.answersPi).toBe(true);
    // Asked at once; the module answers pi-version first (and only once both were asked). Engram asked twice (as
    // while pnpm ran, then by the check) is sent once, and both get its answer.
    const [pi] = await Promise.all([module.piVersion(), module.engram(), module.engram()]);
    expect(pi).toEqual({ code: 0, reported: "1.6.0", stderr: "" });
    await module.ensureLauncher();
    await module.close();
    expect(await fake.asked()).toEqual([["--gentle-shell-engine-internal", "serve"], "pi-version", "engram", "ensure-launcher", "stdin ended"]);
  });

  it("writes nothing it was not asked: closed after its checks, it is never asked for the launcher", async () => {
    const fake = await standIn("serve");
    const module = await fake.open();
    await Promise.all([module.engram(), module.piVersion()]);
    await module.close();
    const asked = await fake.asked();
    expect(asked).not.toContain("ensure-launcher");
    expect(asked.at(-1)).toBe("stdin ended");
    // One start for all of it.
    expect(asked.filter(Array.isArray)).toHaveLength(1);
  });

  it("an error it answers fails that request with its sentence", async () => {
    const fake = await standIn("refuse-engram");
    const module = await fake.open();
    await expect(module.engram()).rejects.toThrow("engram of that version failed: the Engram download did not match its pin");
    await module.close();
  });

  it("a module that dies fails what was pending with what it said, and a later request at once", async () => {
    const fake = await standIn("die");
    const module = await fake.open();
    await expect(module.piVersion()).rejects.toThrow("pi-version of that version failed: gentle-shell: its Pi could not be started");
    await expect(module.ensureLauncher()).rejects.toThrow("ensure-launcher of that version failed: gentle-shell: its Pi could not be started");
    await module.close();
  });

  it("a line that is not an answer fails what was pending, and every later request, with what it said", async () => {
    const fake = await standIn("garbled");
    const module = await fake.open();
    await expect(module.piVersion()).rejects.toThrow('serve of that version answered "Pi 1.6.0 says hello"');
    await expect(module.ensureLauncher()).rejects.toThrow('serve of that version answered "Pi 1.6.0 says hello"');
    await module.close();
    expect(await fake.asked()).not.toContain("ensure-launcher");
  });

  it("a serve that fails before it is ready stops with its error", async () => {
    const fake = await standIn("no-runtime");
    await expect(fake.open()).rejects.toThrow("serve of that version failed: gentle-shell: the pinned Node could not be downloaded: the mirror did not answer");
  });

  it("a module without the functions the upgrade uses is refused, naming the first one missing", async () => {
    const fake = await standIn("no-functions");
    await expect(fake.open()).rejects.toThrow(`that version's module has no ${MODULE_FUNCTIONS[0]}; nothing was changed`);
  });
});

describe("a module from before serve", () => {
  it("is asked one command per start, as before: its runtime with Engram, its functions and its Pi at once, then its launcher", async () => {
    const fake = await standIn("old");
    const module = await fake.open();
    expect(module.engineVersion).toBe("0.9.0");
    expect(module.answersPi).toBe(true);
    await module.engram();
    expect(await module.piVersion()).toEqual({ code: 0, reported: "1.6.0", stderr: "" });
    await module.ensureLauncher();
    await module.close();
    const starts = (await fake.asked()).map((args) => (args as string[]).slice(1));
    const runtimeFlags =
      hostPlatform(process.platform) === "win32"
        ? ["--engram", "--functions", "--pi-version"]
        : ["--engram", "--functions", "--pi-version", "--launcher-script"];
    expect(starts).toEqual([["serve"], ["ensure-runtime", ...runtimeFlags], ["ensure-launcher"]]);
  });

  it("a rollback does not ask it for its Pi", async () => {
    const fake = await standIn("old");
    const module = await fake.open(false);
    expect(module.answersPi).toBe(false);
    expect(await module.piVersion()).toBeNull();
    await module.close();
    expect((await fake.asked())[1]).not.toContain("--pi-version");
  });
});
