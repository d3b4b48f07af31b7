/**
 * Pi's own tools through the installed launcher (spec: "Launcher in a
 * bundled install", Pi's own tools), with the real Pi 1.6.0 and the fixture
 * fd and rg (test/support/pi-tools.ts) the fixture pins name. Setup at
 * install provisions them from the install's source (the fixture mirror);
 * when they are gone, the launcher provisions them again before Pi starts.
 * Then Pi, started by the launcher inside a network namespace (`unshare -n`,
 * only a loopback that is up) and not told to be offline, finds ours in
 * <agent home>/bin: it warns of no missing tool, tries no download, and its
 * `@` file completion runs our fd. When ours is gone and cannot be fetched
 * (no network), Pi's own attempt fails in the same namespace, the launcher
 * says so in one line and Pi still starts: the namespace really blocks the
 * download the first launch did not need.
 */
import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { installed } from "../support/installed";
import { FD_RESULT, FD_VERSION, RIPGREP_VERSION, toolScript } from "../support/pi-tools";
import { Terminal } from "../support/tmux";
import { runCommand } from "../support/proc";
import { writeStubModelConfig } from "../support/stub-model";

const f = fixtures();
const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const fdScript = toolScript("fd", `fd ${FD_VERSION}`);

/** Pi's own words when a tool is missing (dist/utils/tools-manager.js). */
const MISSING = /not found\. Offline mode|not found\. Downloading|Failed to download (fd|ripgrep)|installed to /;

describe("Pi's own tools, provisioned verified into the Shell's agent home", () => {
  it("setup puts ours in place; the launcher puts them back; Pi, with no network, uses ours and downloads nothing", async () => {
    const i = await installed(f);
    const agent = join(i.prefix, "agent");
    const bin = join(agent, "bin");
    await writeStubModelConfig(agent, `${f.modelUrl}/v1`);

    // Setup at install: both tools from the fixture mirror, each with our marker.
    expect((await fs.readdir(bin)).sort()).toEqual([".gentle-shell-fd", ".gentle-shell-rg", "fd", "rg"]);
    expect(await fs.readFile(join(bin, "fd"), "utf8")).toBe(fdScript);
    expect((await fs.stat(join(bin, "rg"))).mode & 0o777).toBe(0o755);
    expect(JSON.parse(await fs.readFile(join(bin, ".gentle-shell-fd"), "utf8"))).toEqual({ schema: 1, tool: "fd", version: FD_VERSION, sha256: sha(fdScript) });
    expect(JSON.parse(await fs.readFile(join(bin, ".gentle-shell-rg"), "utf8"))).toMatchObject({ tool: "ripgrep", version: RIPGREP_VERSION });

    // Gone from the home and from runtime/: the next launch fetches them again from the remembered source.
    await fs.rm(bin, { recursive: true });
    await fs.rm(join(i.prefix, "runtime", `fd-${FD_VERSION}`), { recursive: true });
    const log = join(i.root, "tool-log");
    const env = { ...i.env, PATH: "/usr/bin:/bin", ENGRAM_STARTUP_POLICY: "disabled", PI_TELEMETRY: "0", LANG: "C.UTF-8", GSS_FIXTURE_TOOL_LOG: log };
    const stderr = join(i.root, "launcher-stderr");
    const launch = (netns: boolean) =>
      Terminal.open({
        command: netns ? ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" 2>"$1"', i.gs, stderr] : ["sh", "-c", 'exec "$0" 2>"$1"', i.gs, stderr],
        cwd: i.home,
        env,
        columns: 120,
        rows: 40,
      });
    // Help, --version and Pi's subcommands are no Pi session: they download nothing.
    for (const args of [["--help"], ["--version"], ["list"]]) {
      const r = await runCommand(i.gs, args, { env, cwd: i.home });
      expect(r.code, r.stdout + r.stderr).toBe(0);
    }
    await expect(fs.stat(bin)).rejects.toThrow();
    await expect(fs.stat(join(i.prefix, "runtime", `fd-${FD_VERSION}`))).rejects.toThrow();
    // Offline as Pi 1.6.0's main() reads it (an --offline anywhere among its words, after `--` too): fd is not fetched.
    const told = await runCommand(i.gs, ["-p", "say hi", "--", "--offline"], { env, cwd: i.home });
    expect(told.code, told.stdout + told.stderr).toBe(0);
    await expect(fs.stat(join(bin, "fd"))).rejects.toThrow();
    await expect(fs.stat(join(i.prefix, "runtime", `fd-${FD_VERSION}`))).rejects.toThrow();
    const first = await launch(false);
    await first.waitForPi("idle");
    await first.close();
    expect((await fs.readdir(bin)).sort()).toEqual([".gentle-shell-fd", ".gentle-shell-rg", "fd", "rg"]);
    expect(await fs.readFile(join(bin, "fd"), "utf8")).toBe(fdScript);
    expect(await fs.readFile(stderr, "utf8")).not.toContain("not provisioned");

    // No network at all, and Pi not told to be offline: ours are found, nothing is downloaded.
    const offline = await launch(true);
    const idle = await offline.waitForPi("idle");
    expect(idle).not.toMatch(MISSING);
    await fs.writeFile(join(i.home, "gss-fixture-fd-found-this.txt"), "");
    await offline.keys("-l", "@gss-fixture");
    const completion = await offline.waitFor((s) => s.includes(FD_RESULT), "Pi's @ completion listing our fd's result");
    expect(completion).not.toMatch(MISSING);
    await offline.close();
    expect(await fs.readFile(log, "utf8")).toMatch(/^fd --base-directory /m);
    expect(await fs.readFile(stderr, "utf8")).not.toContain("not provisioned");
    expect((await fs.readdir(bin)).sort()).toEqual([".gentle-shell-fd", ".gentle-shell-rg", "fd", "rg"]);

    // Control: ours gone and not fetchable (no network): the launcher says so once, Pi's own download fails, Pi runs.
    await fs.rm(join(bin, "fd"));
    await fs.rm(join(i.prefix, "runtime", `fd-${FD_VERSION}`), { recursive: true });
    const control = await launch(true);
    const failed = await control.waitFor((s) => /Failed to download fd/.test(s), "Pi's own failed fd download");
    expect(failed).not.toMatch(/ripgrep not found|Failed to download ripgrep/);
    await control.close();
    const said = (await fs.readFile(stderr, "utf8")).split("\n").filter((l) => l.includes("not provisioned"));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^gentle-shell: Pi's fd was not provisioned \(.*\); Pi looks for it itself\.$/);
    expect(await fs.readdir(bin)).not.toContain("fd");

    // The failure is remembered, so a dead network costs one slow start: for a day launches fetch nothing and say nothing...
    const record = join(i.prefix, "config", "pi-tools-failed.json");
    expect(JSON.parse(await fs.readFile(record, "utf8")).at).toBeTypeOf("number");
    expect((await fs.stat(record)).mode & 0o777).toBe(0o600);
    const quiet = await launch(false);
    await quiet.waitFor((s) => /─{20,}/.test(s), "Pi's editor");
    await quiet.close();
    expect(await fs.readFile(stderr, "utf8")).not.toContain("not provisioned");
    expect(await fs.readdir(bin)).not.toContain("fd");
    // ...and gentle-shell setup tries again at once, and forgets the failure once it worked.
    const setup = await runCommand(i.gs, ["setup"], { env: { ...env, GENTLE_AI_FIXTURE_RECORD: join(i.root, "ai-record") }, cwd: i.home });
    expect(setup.code, setup.stdout + setup.stderr).toBe(0);
    expect(await fs.readFile(join(bin, "fd"), "utf8")).toBe(fdScript);
    await expect(fs.stat(record)).rejects.toThrow();
  });
});
