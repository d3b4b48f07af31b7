/**
 * `status` (issue 14) over a prefix built by hand: healthy, broken (no
 * current) and absent; the memory probe only when asked; masked sources;
 * nothing written (tree and mtimes); and the document fits the schema.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { prefixLayout, type Layout, type Platform } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { PI_PACKAGE, SHELL_PACKAGE } from "../../src/core/release-project";
import { cmdLauncher, posixLauncher } from "../../src/install/launcher";
import { RUNTIME_MARKER } from "../../src/install/runtime/recipe";
import { VERSION_MARKER } from "../../src/install/version-install";
import { readPathReceipt } from "../../src/path/receipt-file";
import { posixLine, USER_PATH_KEY, USER_PATH_NAME } from "../../src/path/shells";
import { userPathEntry } from "../../src/path/user-path";
import { gatherStatus, type StatusProbes } from "../../src/commands/status/gather";
import { parseStatusArgs, runStatus } from "../../src/commands/status/command";
import { NOT_INSTALLED, statusDocument } from "../../src/commands/status/render";
import { scratchDir } from "../support/scratch";
import { treeWithTimes } from "../support/tree";
import { schemaErrors } from "../support/result-schema";

const SHELL = "4.1.0";
const PI = "0.70.2";
const ID = `${SHELL}-${PI}`;
const SECRET = "s3cret-never-shown";
// The layout this machine's installs have: current is a relative link on POSIX, a pointer file on Windows.
const machine: Platform = process.platform === "win32" ? "win32" : "linux";

let home: string;
let layout: Layout;
let asked: { launcher: number; memory: number };

function probes(over: Partial<StatusProbes> = {}): StatusProbes {
  return {
    runLauncher: async () => {
      asked.launcher++;
      return { code: 0, stdout: `gentle-shell ${SHELL}\npi ${PI}\n`, stderr: "" };
    },
    readReceipt: () => readPathReceipt(layout, {}),
    probeMemory: async () => {
      asked.memory++;
      return { memory: "disabled", row: "start-not-allowed" };
    },
    ...over,
  };
}

async function version(id: string, shell: string, pi: string) {
  const dir = join(layout.versions, id);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(join(dir, VERSION_MARKER), `${id}\n`);
  await fs.writeFile(join(dir, "package.json"), JSON.stringify({ dependencies: { [SHELL_PACKAGE]: shell, [PI_PACKAGE]: pi } }));
}

async function healthyPrefix() {
  await version(ID, SHELL, PI);
  await version("4.0.0-0.69.0", "4.0.0", "0.69.0");
  if (layout.platform === "win32") await fs.writeFile(layout.current, `${ID}\n`);
  else await fs.symlink(`versions/${ID}`, layout.current);
  await fs.writeFile(layout.history, `${ID}\n4.0.0-0.69.0\n`);
  for (const dir of [layout.nodeDir, layout.pnpmDir]) {
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(join(dir, RUNTIME_MARKER), "ours\n");
  }
  await fs.mkdir(layout.bin, { recursive: true });
  await fs.writeFile(layout.launcher, layout.platform === "win32" ? cmdLauncher(layout) : posixLauncher(layout), { mode: 0o755 });
  await fs.mkdir(layout.config, { recursive: true });
  await fs.writeFile(join(layout.config, "install-source"), `http://user:${SECRET}@127.0.0.1:9/mirror/?token=${SECRET}\n`);
  await fs.mkdir(layout.pnpm.config, { recursive: true });
  await fs.writeFile(layout.pnpm.npmrc, `registry=http://me:${SECRET}@127.0.0.1:4873/\n`);
}

const gather = (memory: boolean, over: Partial<StatusProbes> = {}) => gatherStatus({ layout, pins: productionPins, env: {}, probes: probes(over), memory });

beforeEach(() => {
  home = join(scratchDir("gss-status-"), "home");
  layout = prefixLayout({ home, platform: machine, pins: productionPins });
  asked = { launcher: 0, memory: 0 };
});

describe("status of a healthy install", () => {
  beforeEach(healthyPrefix);

  it("reports the active and kept versions, runtimes, launcher check, PATH and the masked source", async () => {
    const report = await gather(false);
    expect(report.healthy).toBe(true);
    expect(report.problems).toEqual([]);
    expect(report.prefix).toBe("~/.gentle-shell");
    expect(report.active).toEqual({ id: ID, shell: SHELL, pi: PI, state: "valid" });
    expect(report.kept).toEqual([{ id: "4.0.0-0.69.0", shell: "4.0.0", pi: "0.69.0", state: "valid" }]);
    expect(report.runtimes.filter((r) => r.required).map((r) => [r.name, r.state])).toEqual([
      ["node", "marked"],
      ["pnpm", "marked"],
    ]);
    expect(report.runtimes.find((r) => r.name === "engram")).toMatchObject({ state: "missing", required: false });
    const launcher = layout.platform === "win32" ? "~/.gentle-shell/bin/gentle-shell.cmd" : "~/.gentle-shell/bin/gentle-shell";
    expect(report.launcher).toEqual({ path: launcher, file: "ours", check: "passed", detail: `gentle-shell ${SHELL} / pi ${PI}` });
    expect(report.path).toMatchObject({ receipt: "missing", onPath: false });
    expect(report.source?.source).toBe("http://***@127.0.0.1:9/mirror/?token=***");
    expect(report.source?.registry).toBe("http://***@127.0.0.1:4873/");
    expect(JSON.stringify(report)).not.toContain(SECRET);
    expect(asked).toEqual({ launcher: 1, memory: 0 });
  });

  it("writes nothing: the prefix's tree and mtimes are the same after lines and --json --memory", async () => {
    const before = await treeWithTimes(home);
    const lines: string[] = [];
    const context = { layout, pins: productionPins, env: {}, probes: probes() };
    expect(await runStatus(context, { json: false }, { out: (l) => lines.push(l) })).toBe(0);
    expect(await runStatus(context, { json: true, memory: true }, { out: (l) => lines.push(l) })).toBe(0);
    expect(await treeWithTimes(home)).toEqual(before);
    expect(lines[0]).toBe("Gentle Shell in ~/.gentle-shell: healthy");
  });

  it("probes memory for a person by default, and under --json only with --memory", async () => {
    const context = { layout, pins: productionPins, env: {}, probes: probes() };
    const docs: string[] = [];
    await runStatus(context, { json: true }, { out: (l) => docs.push(l) });
    expect(asked.memory).toBe(0);
    expect(JSON.parse(docs[0]!).status.memory).toEqual({ probed: false });
    await runStatus(context, { json: true, memory: true }, { out: (l) => docs.push(l) });
    expect(asked.memory).toBe(1);
    expect(JSON.parse(docs[1]!).status.memory).toEqual({ probed: true, memory: "disabled", reason: "start-not-allowed", notice: null });
    const lines: string[] = [];
    await runStatus(context, { json: false }, { out: (l) => lines.push(l) });
    expect(asked.memory).toBe(2);
    expect(lines.some((l) => /^ {2}memory +disabled \(start-not-allowed\)$/.test(l))).toBe(true);
    await runStatus(context, { json: false, memory: false }, { out: () => undefined });
    expect(asked.memory).toBe(2);
  });

  it("prints short aligned lines", async () => {
    const lines: string[] = [];
    await runStatus({ layout, pins: productionPins, env: {}, probes: probes() }, { json: false, memory: false }, { out: (l) => lines.push(l) });
    const rows = lines.slice(1);
    expect(rows.map((l) => l.match(/^ {2}(\S+) +/)?.[1])).toEqual(["active", "kept", "runtimes", "launcher", "PATH", "source", "updates", "memory"]);
    expect(new Set(rows.map((l) => l.search(/(?<=^ {2}\S+ +)\S/))).size).toBe(1);
    expect(rows[0]).toContain(`${ID} (gentle-pi ${SHELL}, Pi ${PI})`);
  });

  it("fits the schema", async () => {
    expect(schemaErrors(statusDocument(await gather(true)))).toEqual([]);
  });

  it("shows the update policy in force and where it came from: the default, GENTLE_SHELL_UPDATES, config.json's minimumReleaseAge", async () => {
    // Only where no administrator's policy file is on this machine: that file wins over both (test/e2e/status-json.test.ts has one).
    const context = (env: Record<string, string>) => ({ layout, pins: productionPins, env, probes: probes() });
    const lines: string[] = [];
    await runStatus(context({}), { json: false, memory: false }, { out: (l) => lines.push(l) });
    expect(lines).toContain("  updates   on (the default)");
    expect((await gather(false)).updates).toEqual({ value: "on", from: "default", where: null, minimumReleaseAge: null, problem: null, machine: null });

    await fs.writeFile(join(layout.config, "config.json"), JSON.stringify({ updates: "off", minimumReleaseAge: "7d" }));
    const env = { GENTLE_SHELL_UPDATES: "notify" };
    const report = await gatherStatus({ layout, pins: productionPins, env, probes: probes(), memory: false });
    // The layout's paths use forward slashes on every platform (pathe), so status names the file that way on Windows too.
    const config = "~/.gentle-shell/config/config.json";
    expect(report.updates).toEqual({
      value: "notify",
      from: "env",
      where: null,
      minimumReleaseAge: { minutes: 7 * 1440, setting: "7d", from: "config", where: config },
      problem: null,
      machine: null,
    });
    expect(report.healthy).toBe(true);
    expect(schemaErrors(statusDocument(report))).toEqual([]);
    const shown: string[] = [];
    await runStatus(context(env), { json: false, memory: false }, { out: (l) => shown.push(l) });
    expect(shown).toContain(`  updates   notify, set by the environment variable GENTLE_SHELL_UPDATES; minimumReleaseAge 7 days, set by ${config}`);
  });

  it("is broken when the launcher check reports another version", async () => {
    const report = await gather(false, { runLauncher: async () => ({ code: 1, stdout: "", stderr: `boom in ${home}/x\n` }) });
    expect(report.healthy).toBe(false);
    expect(report.launcher?.check).toBe("failed");
    expect(report.launcher?.detail).toContain("~/x");
    expect(report.launcher?.detail).not.toContain(home);
  });

  it("reads the PATH receipt back: valid when it is this prefix's line, invalid with the reason otherwise", async () => {
    // The receipt this machine's installs write: a profile line on POSIX, the user Path's entry on Windows.
    const mine =
      layout.platform === "win32"
        ? {
            env: { Path: `${userPathEntry(layout.bin)};C:\\Windows` },
            receipt: { schema: 1, kind: "registry", key: USER_PATH_KEY, name: USER_PATH_NAME, entry: userPathEntry(layout.bin) },
            profile: null,
            where: `${USER_PATH_KEY}\\${USER_PATH_NAME}`,
            other: { entry: "C:\\elsewhere\\bin" },
            reason: "the entry is not this prefix's bin folder",
          }
        : {
            env: { SHELL: "/bin/bash", PATH: `${layout.bin}:/usr/bin` },
            receipt: { schema: 1, kind: "profile", path: join(home, ".bashrc"), line: posixLine(layout.bin), create: true, separator: "" },
            profile: join(home, ".bashrc"),
            where: "~/.bashrc",
            other: { line: "export PATH=/elsewhere:$PATH" },
            reason: "the line is not this prefix's line for ~/.bashrc",
          };
    const { env, receipt } = mine;
    if (mine.profile) await fs.writeFile(mine.profile, `${posixLine(layout.bin)}\n`);
    await fs.writeFile(layout.pathReceipt, JSON.stringify(receipt), { mode: 0o600 });
    const readReceipt = () => readPathReceipt(layout, env);
    const valid = await gatherStatus({ layout, pins: productionPins, env, probes: probes({ readReceipt }), memory: false });
    expect(valid.path).toEqual({ receipt: "valid", kind: receipt.kind, where: mine.where, reason: null, onPath: true });
    await fs.writeFile(layout.pathReceipt, JSON.stringify({ ...receipt, ...mine.other }), { mode: 0o600 });
    const invalid = await gatherStatus({ layout, pins: productionPins, env: {}, probes: probes({ readReceipt }), memory: false });
    expect(invalid.path).toMatchObject({ receipt: "invalid", kind: null, reason: mine.reason, onPath: false });
    // A receipt is not part of health: an install with --no-modify-path has none.
    expect(invalid.healthy).toBe(true);
  });
});

describe("status of a broken install (no current)", () => {
  it("names what is missing and exits 1", async () => {
    await healthyPrefix();
    await fs.rm(layout.current);
    const report = await gather(false);
    expect(report.installed).toBe(true);
    expect(report.healthy).toBe(false);
    expect(report.active).toBeNull();
    expect(report.problems[0]).toBe("no current version: ~/.gentle-shell/current is missing");
    expect(report.kept.map((v) => v.id).sort()).toEqual(["4.0.0-0.69.0", ID]);
    expect(asked.launcher).toBe(0);
    const lines: string[] = [];
    expect(await runStatus({ layout, pins: productionPins, env: {}, probes: probes() }, { json: false }, { out: (l) => lines.push(l) })).toBe(1);
    expect(lines[0]).toBe("Gentle Shell in ~/.gentle-shell: broken");
    const doc = statusDocument(report);
    expect(doc).toMatchObject({ ok: false, exitCode: 1 });
    expect(schemaErrors(doc)).toEqual([]);
  });

  it("is broken when a required runtime lost its marker", async () => {
    await healthyPrefix();
    await fs.rm(join(layout.pnpmDir, RUNTIME_MARKER));
    const report = await gather(false);
    expect(report.problems).toEqual([`pnpm ${productionPins.pnpm.version} is not marked as ours (runtime/pnpm-${productionPins.pnpm.version})`]);
  });
});

describe("status of an empty home", () => {
  it("says Gentle Shell is not installed, exits 0, asks no probe and creates nothing", async () => {
    await fs.mkdir(home, { recursive: true });
    const before = await treeWithTimes(home);
    const lines: string[] = [];
    expect(await runStatus({ layout, pins: productionPins, env: {}, probes: probes() }, { json: false }, { out: (l) => lines.push(l) })).toBe(0);
    expect(lines).toEqual([`${NOT_INSTALLED} (~/.gentle-shell does not exist).`]);
    expect(asked).toEqual({ launcher: 0, memory: 0 });
    expect(await treeWithTimes(home)).toEqual(before);
    const doc = statusDocument(await gather(false));
    expect(doc).toMatchObject({ ok: true, exitCode: 0, status: { installed: false, healthy: false } });
    expect(schemaErrors(doc)).toEqual([]);
  });
});

describe("gentle-shell status arguments", () => {
  it("takes --json, --memory and --no-memory, and refuses anything else", () => {
    expect(parseStatusArgs(["--json", "--memory"])).toEqual({ json: true, memory: true });
    expect(parseStatusArgs(["--no-memory"])).toEqual({ json: false, memory: false });
    expect(parseStatusArgs(["--frobnicate"])).toMatch(/^unknown option "--frobnicate" for gentle-shell status/);
    expect(parseStatusArgs(["extra"])).toMatch(/^unknown argument "extra"/);
  });
});

describe("the schema", () => {
  it("refuses a document that does not fit", () => {
    expect(schemaErrors({ schema: 1, command: "status", ok: true, exitCode: 0, error: "x" })).not.toEqual([]);
    expect(schemaErrors({ schema: 1, command: "install", ok: false, exitCode: 1, error: "x", bogus: 1 })).not.toEqual([]);
    expect(schemaErrors({ schema: 1, command: "install", ok: false, exitCode: 2, error: "unknown option" })).toEqual([]);
    // What status reports is checked through status.schema.json, in a status and in an install's state.
    const status = { installed: "yes" };
    expect(schemaErrors({ schema: 1, command: "status", ok: true, exitCode: 0, error: null, status })).not.toEqual([]);
    const install = { prefix: "~/.gentle-shell", source: "official", dryRun: true, plan: [], steps: [], next: null };
    expect(schemaErrors({ schema: 1, command: "install", ok: true, exitCode: 0, error: null, ...install, state: status })).not.toEqual([]);
    expect(schemaErrors({ schema: 1, command: "install", ok: true, exitCode: 0, error: null, ...install, state: null })).toEqual([]);
  });
});
