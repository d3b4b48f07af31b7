/**
 * `status` and `--json` (issue 14) on the built single-executable with
 * fixture pins: an empty home, a dry run, a failed install, a usage error
 * and a full install under --json, each with one document on stdout that
 * fits src/cli/schema/result.schema.json; then `status` of that healthy
 * install from the installer and from the launcher, which writes nothing
 * in the prefix, with the update policy in force and its source (issue 41),
 * and of the same install without `current`.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { gentleShellSetup, runInstall } from "../support/installed";
import { gs } from "../support/launch";
import { runCommand } from "../support/proc";
import { scratchHome } from "../support/home";
import { scratchDir } from "../support/scratch";
import { treeWithTimes } from "../support/tree";
import { onlyDocument, schemaErrors } from "../support/result-schema";
import { BUNDLE_MANIFEST } from "../../src/install/offline/format";

const f = fixtures();
const latest = f.releases[f.releases.length - 1]!;
const STEPS = ["claim", "npm-settings", "runtime", "version", "activate", "launcher", "verify-launcher", "path", "setup"];

/** The run's one document: exactly one line on stdout, fitting the schema, whose exit code is the process's. */
function documentOf(r: { code: number | null; stdout: string; stderr: string }): Record<string, unknown> {
  const doc = onlyDocument(r.stdout);
  expect(schemaErrors(doc), JSON.stringify(doc).slice(0, 2000)).toEqual([]);
  expect(doc.exitCode).toBe(r.code);
  return doc;
}

describe("an empty home", () => {
  it("status says Gentle Shell is not installed here and exits 0, in lines and in JSON", async () => {
    const home = await scratchHome({ name: "empty", registry: f.registryUrl });
    const lines = await gentleShellSetup(f, home, ["status"]);
    expect(lines.code, lines.stderr).toBe(0);
    expect(lines.stdout).toBe("Gentle Shell is not installed here (~/.gentle-shell does not exist).\n");
    const doc = documentOf(await gentleShellSetup(f, home, ["status", "--json"]));
    expect(doc).toMatchObject({ command: "status", ok: true, error: null, status: { installed: false, prefix: "~/.gentle-shell" } });
    await expect(fs.lstat(join(home, ".gentle-shell"))).rejects.toThrow();
  });

  it("uninstall --json finds no install, exits 0 and creates nothing", async () => {
    const home = await scratchHome({ name: "empty-uninstall", registry: f.registryUrl });
    const doc = documentOf(await gentleShellSetup(f, home, ["uninstall", "--json", "--yes"]));
    expect(doc).toMatchObject({ command: "uninstall", ok: true, exitCode: 0, installed: false, prefix: null });
    await expect(fs.lstat(join(home, ".gentle-shell"))).rejects.toThrow();
  });
});

describe("install --json", () => {
  it("a dry run: the plan, no steps, the state as it is, and what to run next", async () => {
    const home = await scratchHome({ name: "dry", registry: f.registryUrl });
    const r = await gentleShellSetup(f, home, ["install", "--json", "--dry-run", "--source", f.mirrorUrl]);
    const doc = documentOf(r);
    expect(doc).toMatchObject({ command: "install", ok: true, exitCode: 4, error: null, dryRun: true, prefix: "~/.gentle-shell", steps: [] });
    expect((doc.plan as Array<{ id: string }>).map((p) => p.id)).toEqual(STEPS);
    expect(doc.state).toMatchObject({ installed: false });
    expect(doc.next).toMatch(/without --dry-run/);
    // The plan lines a person reads went to stderr.
    expect(r.stderr).toContain("Dry run: nothing was changed.");
    await expect(fs.lstat(join(home, ".gentle-shell"))).rejects.toThrow();
  });

  it("a usage error is a document too, with exit code 2", async () => {
    const home = await scratchHome({ name: "usage", registry: f.registryUrl });
    const doc = documentOf(await gentleShellSetup(f, home, ["install", "--json", "--frobnicate"]));
    expect(doc).toMatchObject({ command: "install", ok: false, exitCode: 2 });
    expect(doc.error).toMatch(/--frobnicate/);
  });

  it("a failed install: the failed step with its detail, the error, exit 1, and home shown as ~", async () => {
    const home = await scratchHome({ name: "failed", registry: f.registryUrl });
    const r = await runInstall(f, home, ["--json", "--no-setup", "--release", "99.0.0"]);
    const doc = documentOf(r);
    expect(doc).toMatchObject({ command: "install", ok: false, exitCode: 1, dryRun: false });
    const steps = doc.steps as Array<{ id: string; status: string; detail: string }>;
    const failed = steps.find((s) => s.status === "failed")!;
    expect(failed).toBeDefined();
    expect(doc.error).toBe(`the ${failed.id} step failed: ${failed.detail}`);
    expect(steps.slice(steps.indexOf(failed) + 1).every((s) => s.status === "not-run")).toBe(true);
    expect(doc.next).toMatch(/run the installer again/);
    expect(r.stdout).not.toContain(home);
  });
});

describe("a full install under --json, then status", () => {
  let home: string;
  let prefix: string;
  let doc: Record<string, unknown>;
  let stderr: string;

  beforeAll(async () => {
    home = await scratchHome({ name: "full", registry: f.registryUrl });
    prefix = join(home, ".gentle-shell");
    const r = await runInstall(f, home, ["--json"]);
    stderr = r.stderr;
    doc = documentOf(r);
  });

  it("writes one document: every step done, the healthy final state and the one next action", () => {
    expect(doc, stderr).toMatchObject({ command: "install", ok: true, exitCode: 0, error: null, dryRun: false });
    const steps = doc.steps as Array<{ id: string; status: string; detail: string }>;
    expect(steps.map((s) => [s.id, s.status])).toEqual(STEPS.map((id) => [id, "done"]));
    expect(steps.find((s) => s.id === "version")!.detail).toContain(`versions/${latest.id}`);
    expect(JSON.stringify(doc)).not.toContain(home);
    expect(doc.state).toMatchObject({ installed: true, healthy: true, active: { id: latest.id, shell: latest.shell, pi: latest.pi, state: "valid" } });
    expect(typeof doc.next).toBe("string");
    // Progress, step lines and setup's own output are on stderr.
    expect(stderr).toMatch(/^✔ verify-launcher: /m);
  });

  it("status reports it healthy, from the installer and from the launcher, and writes nothing in the prefix", async () => {
    const before = await treeWithTimes(prefix);
    const lines = await gentleShellSetup(f, home, ["status"], { ENGRAM_STARTUP_POLICY: "disabled" });
    expect(lines.code, lines.stderr).toBe(0);
    expect(lines.stdout).toMatch(/^Gentle Shell in ~\/\.gentle-shell: healthy\n/);
    expect(lines.stdout).toContain(`active    ${latest.id} (gentle-pi ${latest.shell}, Pi ${latest.pi})`);
    expect(lines.stdout).toMatch(/^ {2}memory +disabled \(policy-disabled\)$/m);
    const json = documentOf(await gentleShellSetup(f, home, ["status", "--json"]));
    expect(json).toMatchObject({ ok: true, status: { healthy: true, launcher: { check: "passed" }, memory: { probed: false } } });
    const engine = await gs(home, ["status", "--json"]);
    expect(documentOf(engine)).toMatchObject({ command: "status", ok: true, status: { healthy: true, active: { id: latest.id } } });
    const usage = await gs(home, ["status", "--json", "--bogus"]);
    expect(documentOf(usage)).toMatchObject({ ok: false, exitCode: 2 });
    expect(await treeWithTimes(prefix)).toEqual(before);
  });

  it("status read by a reader that stops early (| head -1, | true) ends normally: no crash, no stack, exit 0", async () => {
    // `true` reads nothing and is gone before status writes its first line: every write meets a closed pipe.
    for (const [reader, printed] of [
      ["head -1", "Gentle Shell in ~/.gentle-shell: healthy\n"],
      ["true", ""],
    ]) {
      for (const command of [join(prefix, "bin", "gentle-shell"), f.binary!]) {
        const err = join(home, "status.err");
        const code = join(home, "status.code");
        const r = await runCommand("/bin/sh", ["-c", `{ "$0" status 2>"$1"; echo $? >"$2"; } | ${reader}`, command, err, code], {
          env: homeEnv(home, { SHELL: "/bin/bash", ENGRAM_STARTUP_POLICY: "disabled" }),
          cwd: home,
        });
        expect(r.stdout, `${command} | ${reader}`).toBe(printed);
        expect(await fs.readFile(err, "utf8"), `${command} | ${reader}`).toBe("");
        expect((await fs.readFile(code, "utf8")).trim(), `${command} | ${reader}`).toBe("0");
      }
    }
  });

  it("uninstall --json --dry-run: one document, the launcher's plan on stderr, nothing removed", async () => {
    const before = await treeWithTimes(prefix);
    const r = await gentleShellSetup(f, home, ["uninstall", "--json", "--dry-run"]);
    expect(documentOf(r), r.stderr).toMatchObject({ command: "uninstall", ok: true, exitCode: 4, installed: true, prefix: "~/.gentle-shell", dryRun: true });
    expect(r.stderr).toContain("~/.gentle-shell");
    expect(await treeWithTimes(prefix)).toEqual(before);
  });

  it("status shows the update policy in force and where it came from, in lines and in --json, from the installer and the launcher", async () => {
    const plain = await gentleShellSetup(f, home, ["status", "--no-memory"]);
    expect(plain.stdout).toMatch(/^ {2}updates +on \(the default\)$/m);
    expect(documentOf(await gs(home, ["status", "--json"])).status).toMatchObject({
      updates: { value: "on", from: "default", where: null, minimumReleaseAge: null, problem: null, machine: null },
    });
    // An administrator's file (under the test build's policy root) beats the user's GENTLE_SHELL_UPDATES; config.json's minimumReleaseAge shows with its file.
    const root = scratchDir("gss-status-policy-");
    await fs.mkdir(join(root, "etc", "gentle-shell"), { recursive: true });
    for (const dir of [root, join(root, "etc"), join(root, "etc", "gentle-shell")]) await fs.chmod(dir, 0o755);
    const policy = join(root, "etc", "gentle-shell", "policy.json");
    await fs.writeFile(policy, '{"updates":"off"}\n', { mode: 0o644 });
    const config = join(prefix, "config", "config.json");
    const had = await fs.readFile(config, "utf8").catch(() => null);
    await fs.writeFile(config, JSON.stringify({ ...JSON.parse(had ?? "{}"), minimumReleaseAge: "5d" }));
    try {
      const env = { GSS_TEST_POLICY_ROOT: root, GENTLE_SHELL_UPDATES: "on" };
      const lines = await gentleShellSetup(f, home, ["status", "--no-memory"], env);
      expect(lines.code, lines.stderr).toBe(0);
      expect(lines.stdout).toMatch(
        new RegExp(
          `^ {2}updates +off, set by the machine-wide policy ${policy}; minimumReleaseAge 5 days, set by ~/\\.gentle-shell/config/config\\.json$`,
          "m",
        ),
      );
      const json = documentOf(await gs(home, ["status", "--json"], env));
      expect(json).toMatchObject({
        ok: true,
        status: {
          healthy: true,
          updates: {
            value: "off",
            from: "machine",
            where: policy,
            minimumReleaseAge: { minutes: 5 * 1440, setting: "5d", from: "config", where: "~/.gentle-shell/config/config.json" },
            machine: { where: policy, tier: "locked" },
          },
        },
      });
    } finally {
      if (had === null) await fs.rm(config);
      else await fs.writeFile(config, had);
    }
  });

  it("status of the same install without current: broken, exit 1", async () => {
    const current = join(prefix, "current");
    const target = await fs.readlink(current);
    await fs.rm(current);
    try {
      const lines = await gentleShellSetup(f, home, ["status", "--no-memory"]);
      expect(lines.code).toBe(1);
      expect(lines.stdout).toMatch(/^Gentle Shell in ~\/\.gentle-shell: broken\n/);
      expect(lines.stdout).toContain("problem: no current version: ~/.gentle-shell/current is missing");
      const json = documentOf(await gentleShellSetup(f, home, ["status", "--json"]));
      expect(json).toMatchObject({ ok: false, exitCode: 1, status: { installed: true, healthy: false, active: null } });
    } finally {
      await fs.symlink(target, current);
    }
  });
});

describe("bundle --json", () => {
  it("a bundle: its folder, release, files and size, with the progress on stderr", async () => {
    const home = await scratchHome({ name: "bundler", registry: f.registryUrl });
    const out = join(home, "gs-bundle");
    const r = await gentleShellSetup(f, home, ["bundle", "--json", "--out", out, "--source", f.mirrorUrl, "--release", latest.shell]);
    const doc = documentOf(r);
    expect(doc, r.stderr).toMatchObject({
      command: "bundle",
      ok: true,
      exitCode: 0,
      bundle: { out: "~/gs-bundle", shell: latest.shell, pi: latest.pi, targets: ["linux-x64"] },
    });
    const manifest = JSON.parse(await fs.readFile(join(out, BUNDLE_MANIFEST), "utf8")) as { files: unknown[] };
    expect((doc.bundle as { files: number }).files).toBe(manifest.files.length + 1);
    expect(doc.next).toMatch(/install --source "\$PWD"/);
    expect(r.stderr).toMatch(/^Making an offline bundle for linux-x64/m);
  });

  it("a bundle that cannot be made: the error, exit 1", async () => {
    const home = await scratchHome({ name: "bundler-fails", registry: f.registryUrl });
    const out = join(home, "failed-bundle");
    const r = await gentleShellSetup(f, home, [
      "bundle",
      "--json",
      "--out",
      out,
      "--source",
      f.mirrorUrl,
      "--release",
      latest.shell,
      "--target",
      "linux-x64,linux-arm64",
    ]);
    const doc = documentOf(r);
    expect(doc).toMatchObject({ command: "bundle", ok: false, exitCode: 1 });
    expect(doc.error).toMatch(/Node 24\.21\.0 \(linux-arm64\)/);
    expect(doc).not.toHaveProperty("bundle");
  });
});
