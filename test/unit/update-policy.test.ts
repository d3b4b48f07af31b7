/**
 * The update policy (issue 41): the pure merge of its three sources
 * (src/core/update-policy.ts), the files read from disk with the machine-wide
 * path under a test's root (src/install/update-policy-file.ts), the signed
 * manifest's published time, and the launches the offer never checks in.
 */
import { mkdtempSync, promises as fs } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { notifyLine } from "../../src/core/offer-rules";
import { privateSetupEnv } from "../../src/core/environment";
import { prefixLayout } from "../../src/core/layout";
import { classifyLaunch } from "../../src/core/pi-launch";
import { publishedTime, readSignedRelease, releaseManifestText, sha256Of, signManifest, ENGINE_ASSET } from "../../src/core/release-manifest";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK } from "../../src/core/release-project";
import { mergePolicy, oldEnough, policyRefusal, tooYoungClause, type PolicySource } from "../../src/core/update-policy";
import { newerReleases, policyRoot, releaseChoice } from "../../src/installed/update-gate";
import { parseShellCommand, UPGRADE } from "../../src/commands/specs";
import { requires } from "../support/capabilities";
import { machinePolicyPath, machinePolicyPaths, readPolicySource, readUpdatePolicy } from "../../src/install/update-policy-file";
import { productionPins } from "../../src/pins/production";
import { FIXTURE_RELEASE_KEY } from "../support/release-key";
import { testHost } from "../support/host";
import type { PrivateInstall } from "../../src/installed/private-install";
import { upgradeInstall, upgradeOptions } from "../../src/commands/upgrade";
import { updateCommand } from "../../src/commands/update";
import { startupOffer } from "../../src/engine/startup-offer";

import { absent, CONFIG, inputs, MACHINE, read } from "../support/policy-inputs";

describe("the update policy's merge", () => {
  it("is on with no minimum age when nothing sets it", () => {
    expect(mergePolicy(inputs(absent, undefined, absent))).toEqual({
      updates: "on",
      from: { kind: "default" },
      minimumAgeMinutes: 0,
      ageFrom: { kind: "default" },
      problem: null,
      allowExactVersions: false,
      machine: null,
    });
    expect(mergePolicy(inputs(absent, "", read({ skippedStartupRelease: "4.1.0" }))).updates).toBe("on");
  });

  it("takes the machine-wide file over the environment, and the environment over config.json", () => {
    const off = mergePolicy(inputs(read({ updates: "off" }), "on", read({ updates: "on" })));
    expect(off).toMatchObject({ updates: "off", from: { kind: "machine", path: MACHINE, locked: true }, problem: null });
    expect(policyRefusal(off, "gentle-shell upgrade")).toBe(
      `gentle-shell upgrade was not run: updates are off by the machine-wide policy ${MACHINE}; nothing was changed`,
    );
    const env = mergePolicy(inputs(absent, "Notify", read({ updates: "off" })));
    expect(env).toMatchObject({ updates: "notify", from: { kind: "env" } });
    expect(policyRefusal(env, "x")).toBeNull();
    const config = mergePolicy(inputs(read({ minimumReleaseAge: "3d" }), undefined, read({ updates: "off", minimumReleaseAge: "9d" })));
    expect(config).toMatchObject({ updates: "off", from: { kind: "config", path: CONFIG }, minimumAgeMinutes: 3 * 1440, ageFrom: { kind: "machine" } });
    expect(policyRefusal(config, "gentle-shell update")).toBe(`gentle-shell update was not run: updates are off by ${CONFIG}; nothing was changed`);
    expect(policyRefusal(mergePolicy(inputs(absent, "off", absent)), "gentle-shell update")).toContain("off by the environment variable GENTLE_SHELL_UPDATES");
    expect(mergePolicy(inputs(absent, undefined, read({ minimumReleaseAge: "2.5d" })))).toMatchObject({ updates: "on", minimumAgeMinutes: 3600 });
  });

  it.each([
    ["is not JSON", { kind: "unreadable", reason: "it is not valid JSON" } as PolicySource, "cannot be read (it is not valid JSON)"],
    ["cannot be read", { kind: "unreadable", reason: "permission denied" } as PolicySource, "cannot be read (permission denied)"],
    ["names an unknown setting", read({ update: "off" }), 'names "update", which is not a policy setting'],
    ["has a value it does not know", read({ updates: "false" }), 'sets updates to "false", not "on", "notify" or "off"'],
    [
      "has a negative minimum age",
      read({ updates: "on", minimumReleaseAge: "-1d" }),
      'sets minimumReleaseAge to "-1d", not an age with its unit such as "90m", "12h" or "7d"',
    ],
    [
      "gives the minimum age without a unit",
      read({ updates: "on", minimumReleaseAge: 1440 }),
      'sets minimumReleaseAge to 1440, which has no unit; write it as a string with one, such as "1440m" (minutes), "1440h" (hours) or "1440d" (days)',
    ],
    ["asks for more than 3650 days", read({ minimumReleaseAge: "3651d" }), 'sets minimumReleaseAge to "3651d", more than the longest it may be, "3650d"'],
    ["says enforce is not true or false", read({ enforce: "no", updates: "on" }), 'sets enforce to "no", not true or false'],
    ["says allowExactVersions is not true or false", read({ allowExactVersions: 1 }), "sets allowExactVersions to 1, not true or false"],
    [
      "names an unknown setting in the defaults tier too",
      read({ enforce: false, updates: "on", channel: "beta" }),
      'names "channel", which is not a policy setting',
    ],
  ])("counts a machine-wide file that %s as off, whatever the user sets, and says why", (_what, source, said) => {
    const policy = mergePolicy(inputs(source, "on", read({ updates: "on" })));
    expect(policy.updates).toBe("off");
    expect(policy.from).toEqual({ kind: "machine", path: MACHINE, locked: true });
    expect(policy.problem).toBe(`the machine-wide policy ${MACHINE} ${said}`);
    expect(policyRefusal(policy, "gentle-shell upgrade")).toBe(
      `gentle-shell upgrade was not run: the machine-wide policy ${MACHINE} ${said}, so updates count as off; nothing was changed`,
    );
  });

  it("never reads a value it does not know as on: an invalid environment or config.json is off from there", () => {
    expect(mergePolicy(inputs(absent, "disabled", absent))).toMatchObject({ updates: "off", from: { kind: "env" } });
    expect(mergePolicy(inputs(absent, undefined, read({ updates: 0 })))).toMatchObject({ updates: "off", from: { kind: "config" } });
    expect(mergePolicy(inputs(absent, undefined, { kind: "unreadable", reason: "it is not valid JSON" })).problem).toBe(
      `${CONFIG} cannot be read (it is not valid JSON)`,
    );
    // config.json holds other settings too: those are not the policy's.
    expect(mergePolicy(inputs(absent, undefined, read({ channel: "release", updates: "notify" }))).updates).toBe("notify");
    // A stronger source that says what it means still wins over a broken weaker one.
    expect(mergePolicy(inputs(absent, "on", read({ updates: "sometimes" }))).updates).toBe("on");
  });
});

describe("minimumReleaseAge", () => {
  const now = Date.parse("2026-12-04T12:00:00Z");
  const DAY = 1440;
  it("lets a release in once it is that old, by its published time", () => {
    expect(oldEnough("2026-12-04T11:00:00Z", now, 0)).toBe(true);
    expect(oldEnough("2026-12-04T11:00:00Z", now, DAY)).toBe(false);
    expect(oldEnough("2026-12-04T11:00:00Z", now, 60)).toBe(true);
    expect(oldEnough("2026-12-04T11:00:00Z", now, 61)).toBe(false);
    expect(oldEnough("2026-12-03T12:00:00Z", now, DAY)).toBe(true);
    expect(oldEnough("2026-11-27T12:00:01Z", now, 7 * DAY)).toBe(false);
  });

  it.each([
    ["90m", 90, "90 minutes"],
    ["12h", 720, "12 hours"],
    ["7d", 7 * 1440, "7 days"],
    ["1d", 1440, "1 day"],
    ["24h", 1440, "1 day"],
    [" 2H ", 120, "2 hours"],
    ["3650d", 3650 * 1440, "3650 days"],
    [0, 0, "0 minutes"],
  ])("reads %j as %d minutes, said as %s", (setting, minutes, said) => {
    const policy = mergePolicy(inputs(read({ minimumReleaseAge: setting }), undefined, absent));
    expect(policy).toMatchObject({ updates: "on", problem: null, minimumAgeMinutes: minutes });
    expect(tooYoungClause(null, policy)).toContain(`at least ${said} old`);
  });

  it.each([7, 1440, 2.5, "7", "7 days", "7w", "", true, null])(
    "refuses %j, so updates are off from that source with one sentence naming the unit",
    (setting) => {
      const policy = mergePolicy(inputs(absent, undefined, read({ minimumReleaseAge: setting })));
      expect(policy).toMatchObject({ updates: "off", from: { kind: "config" } });
      expect(policy.problem).toMatch(
        /^~\/\.gentle-shell\/config\/config\.json sets minimumReleaseAge to .*("90m", "12h" or "7d"|\(minutes\), ".*h" \(hours\) or ".*d" \(days\))$/,
      );
      // A stronger source that sets updates still holds, but not the refused age.
      expect(mergePolicy(inputs(absent, "on", read({ minimumReleaseAge: setting })))).toMatchObject({ updates: "on", minimumAgeMinutes: 0 });
    },
  );

  it("treats a manifest without a published time as not old enough, only when an age is asked for", () => {
    expect(oldEnough(null, now, 0)).toBe(true);
    expect(oldEnough(null, now, 1)).toBe(false);
    const policy = mergePolicy(inputs(absent, undefined, read({ minimumReleaseAge: "7d" })));
    expect(tooYoungClause(null, policy)).toBe(`has no published time in its signed manifest, and ${CONFIG} asks for releases at least 7 days old`);
    expect(tooYoungClause("2026-12-04T11:00:00Z", policy)).toMatch(/^was published 2026-12-04T11:00:00Z, and /);
  });

  it("takes, for a plain upgrade, the newest release old enough by its own manifest, or none", async () => {
    const times: Record<string, string | null> = {
      "4.3.0": "2026-12-04T00:00:00Z",
      "4.2.0": "2026-12-01T00:00:00Z",
      "4.1.0": "2026-11-01T00:00:00Z",
      "4.0.5": null,
    };
    const asked: string[] = [];
    const published = async (shell: string) => {
      asked.push(shell);
      if (!(shell in times)) throw new Error(`Gentle Shell ${shell} has no published release`);
      return times[shell]!;
    };
    const document = async () => ({ versions: { "4.0.0": {}, "4.0.5": {}, "4.1.0": {}, "4.2.0": {}, "4.2.1": {}, "4.3.0": {} } });
    const policy = (days: number) => mergePolicy(inputs(absent, undefined, read({ minimumReleaseAge: `${days}d` })));
    const choose = (days: number) => releaseChoice({ policy: policy(days), latest: "4.3.0", active: "4.0.0", published, document, now });
    expect(await choose(0)).toEqual({ kind: "take", shell: "4.3.0", skipped: null });
    expect(asked).toEqual([]);
    // 4.2.1 has no signed manifest at the source: passed over. 4.2.0 is three days old.
    expect(await choose(2)).toEqual({ kind: "take", shell: "4.2.0", skipped: { shell: "4.3.0", published: "2026-12-04T00:00:00Z" } });
    expect(asked).toEqual(["4.3.0", "4.2.1", "4.2.0"]);
    expect(await choose(10)).toEqual({ kind: "take", shell: "4.1.0", skipped: { shell: "4.3.0", published: "2026-12-04T00:00:00Z" } });
    // 4.0.5's manifest has no time: never old enough.
    expect(await choose(100)).toEqual({ kind: "none", published: "2026-12-04T00:00:00Z" });
  });

  it("looks at the stable releases between the active one and the latest, newest first", () => {
    const document = { versions: { "4.0.0": {}, "4.0.1": {}, "4.1.0-rc.1": {}, "4.1.0": {}, "4.2.0": {}, "3.9.0": {} } };
    expect(newerReleases(document, "4.0.0", "4.1.0")).toEqual(["4.1.0", "4.0.1"]);
    expect(newerReleases(null, "4.0.0", "4.1.0")).toEqual([]);
  });
});

describe("the signed manifest's published time", () => {
  const entry = (text: string) => ({ sha256: sha256Of(text), size: Buffer.byteLength(text) });
  const assets = { [ENGINE_ASSET]: entry("e"), [DISTRIBUTION_JSON]: entry("j"), [DISTRIBUTION_LOCK]: entry("l") };
  const keys = [FIXTURE_RELEASE_KEY.key];
  const signed = (text: string) => readSignedRelease(Buffer.from(text), Buffer.from(signManifest(text, FIXTURE_RELEASE_KEY.privateKeyPem)), keys, "the mirror");

  it("is written after the versions, to the second, and read back verified", () => {
    expect(publishedTime(new Date("2026-12-04T21:30:00.123Z"))).toBe("2026-12-04T21:30:00Z");
    const text = releaseManifestText({ shell: "4.1.0", pi: "1.6.0", published: "2026-12-04T21:30:00Z", assets });
    expect(Object.keys(JSON.parse(text))).toEqual(["schema", "shell", "pi", "published", "assets"]);
    expect(signed(text).published).toBe("2026-12-04T21:30:00Z");
  });

  it("is null in a manifest from before the field, and one that is not a time is refused", () => {
    expect(signed(releaseManifestText({ shell: "4.1.0", pi: "1.6.0", assets })).published).toBeNull();
    expect(() => releaseManifestText({ shell: "4.1.0", pi: "1.6.0", published: "yesterday", assets })).toThrow("published time must read like");
    const odd = releaseManifestText({ shell: "4.1.0", pi: "1.6.0", published: "2026-12-04T21:30:00Z", assets }).replace("21:30:00Z", "21:30:00+01:00");
    expect(() => signed(odd)).toThrow("has a published time that is not like 2026-12-04T21:30:00Z");
  });
});

describe("the policy files on disk", () => {
  const root = mkdtempSync(join(tmpdir(), "gss-policy-"));

  it("puts the machine-wide file in /etc on macOS and Linux, under ProgramData on Windows", () => {
    expect(machinePolicyPath("linux", {})).toBe("/etc/gentle-shell/policy.json");
    expect(machinePolicyPath("darwin", {})).toBe("/etc/gentle-shell/policy.json");
    expect(machinePolicyPath("linux", {}, "/tmp/r")).toBe("/tmp/r/etc/gentle-shell/policy.json");
    expect(machinePolicyPath("win32", { ProgramData: "D:\\PD" })).toBe("D:/PD/gentle-shell/policy.json");
    expect(machinePolicyPath("win32", { PROGRAMDATA: "E:\\Data" })).toBe("E:/Data/gentle-shell/policy.json");
    expect(machinePolicyPath("win32", { SystemDrive: "F:" })).toBe("F:/ProgramData/gentle-shell/policy.json");
    expect(machinePolicyPath("win32", { ProgramData: "" })).toBe("C:/ProgramData/gentle-shell/policy.json");
  });

  it("asks C:\\ProgramData first on Windows, so a ProgramData a user points elsewhere cannot hide the administrator's file", () => {
    expect(machinePolicyPaths("win32", { ProgramData: "D:\\Mine" })).toEqual(["C:/ProgramData/gentle-shell/policy.json", "D:/Mine/gentle-shell/policy.json"]);
    expect(machinePolicyPaths("win32", { ProgramData: "c:\\programdata" })).toEqual(["C:/ProgramData/gentle-shell/policy.json"]);
    expect(machinePolicyPaths("linux", { ProgramData: "/x" })).toEqual(["/etc/gentle-shell/policy.json"]);
  });

  it("counts a file a user other than its owners could change as unreadable, so updates are off (POSIX modes)", async (ctx) => {
    requires(ctx, "posix-modes");
    const own = process.getuid!();
    const dir = join(root, "owned");
    await fs.mkdir(dir, { recursive: true, mode: 0o755 });
    await fs.chmod(dir, 0o755);
    const file = join(dir, "policy.json");
    await fs.writeFile(file, '{"updates":"on"}');
    await fs.chmod(file, 0o644);
    expect(await readPolicySource(file, [own])).toEqual({ kind: "read", settings: { updates: "on" } });
    // Owned by someone not trusted (here: this user, when only another uid is).
    expect(await readPolicySource(file, [own + 1])).toEqual({ kind: "unreadable", reason: `it belongs to uid ${own}, not to root` });
    await fs.chmod(file, 0o666);
    expect(await readPolicySource(file, [own])).toEqual({ kind: "unreadable", reason: "it has mode 0666, which lets other users change it" });
    await fs.chmod(file, 0o644);
    await fs.chmod(dir, 0o775);
    expect(await readPolicySource(file, [own])).toEqual({ kind: "unreadable", reason: "its folder has mode 0775, which lets other users change it" });
    await fs.chmod(dir, 0o755);
    const home = join(root, "home-owned");
    const layout = prefixLayout({ home, platform: "linux", pins: productionPins });
    const etc = join(root, "owned-root");
    await fs.mkdir(join(etc, "etc", "gentle-shell"), { recursive: true });
    await fs.writeFile(join(etc, "etc", "gentle-shell", "policy.json"), '{"updates":"on"}', { mode: 0o666 });
    await fs.chmod(join(etc, "etc", "gentle-shell", "policy.json"), 0o666);
    expect(await readUpdatePolicy(layout, {}, { root: etc })).toMatchObject({
      updates: "off",
      problem: expect.stringContaining("lets other users change it"),
    });
  });

  it("is moved by GSS_TEST_POLICY_ROOT only in a test build: the release build's pins ignore it", () => {
    expect(productionPins.kind).toBe("production");
    expect(policyRoot({ GSS_TEST_POLICY_ROOT: root }, productionPins)).toBeUndefined();
    expect(policyRoot({ GSS_TEST_POLICY_ROOT: root }, { kind: "fixture" })).toBe(root);
  });

  it("reads an absent file as absent, and a folder, a non-object or broken JSON as unreadable", async () => {
    const dir = join(root, "files");
    await fs.mkdir(join(dir, "folder.json"), { recursive: true });
    await fs.writeFile(join(dir, "list.json"), "[1]");
    await fs.writeFile(join(dir, "broken.json"), "{updates: off}");
    await fs.writeFile(join(dir, "ok.json"), '{"updates":"notify"}');
    expect(await readPolicySource(join(dir, "none.json"))).toEqual({ kind: "absent" });
    expect(await readPolicySource(join(dir, "ok.json", "below"))).toEqual({ kind: "absent" });
    expect(await readPolicySource(join(dir, "folder.json"))).toEqual({ kind: "unreadable", reason: "it is not a regular file" });
    expect(await readPolicySource(join(dir, "list.json"))).toEqual({ kind: "unreadable", reason: "it is not a JSON object" });
    expect(await readPolicySource(join(dir, "broken.json"))).toEqual({ kind: "unreadable", reason: "it is not valid JSON" });
    expect(await readPolicySource(join(dir, "ok.json"))).toEqual({ kind: "read", settings: { updates: "notify" } });
  });

  it("merges the file under the root, the environment and the launcher's config.json, naming config.json under ~", async () => {
    const home = join(root, "home");
    const layout = prefixLayout({ home, platform: "linux", pins: productionPins });
    await fs.mkdir(layout.config, { recursive: true });
    await fs.writeFile(join(layout.config, "config.json"), '{"updates":"on","minimumReleaseAge":"2d"}\n');
    expect(await readUpdatePolicy(layout, { GENTLE_SHELL_UPDATES: "notify" }, { root })).toMatchObject({
      updates: "notify",
      from: { kind: "env" },
      minimumAgeMinutes: 2 * 1440,
      ageFrom: { kind: "config", path: "~/.gentle-shell/config/config.json" },
    });
    await fs.mkdir(join(root, "etc", "gentle-shell"), { recursive: true });
    await fs.writeFile(join(root, "etc", "gentle-shell", "policy.json"), '{"updates":"off"}\n');
    expect(await readUpdatePolicy(layout, { GENTLE_SHELL_UPDATES: "on" }, { root })).toMatchObject({
      updates: "off",
      // As the installer spells the path on this machine (forward slashes on Windows too).
      from: { kind: "machine", path: machinePolicyPath("linux", {}, root), locked: true },
    });
  });
});

describe("the launches and options the policy meets", () => {
  it("never checks under CI, other than CI=false or 0", () => {
    const offered = (env: Record<string, string>) => classifyLaunch([], env, true).offer;
    expect(offered({})).toBe(true);
    expect(offered({ CI: "true" })).toBe(false);
    expect(offered({ CI: "1" })).toBe(false);
    expect(offered({ CI: "false" })).toBe(true);
    expect(offered({ CI: "0" })).toBe(true);
  });

  it("says notify's one line on stderr's terms: the gentle-shell prefix, both versions and the command", () => {
    expect(notifyLine("4.0.0", "4.1.0")).toBe("gentle-shell: Gentle Shell 4.1.0 is available (you have 4.0.0); run gentle-shell upgrade to install it.");
  });

  it("reads upgrade --to as an exact release, with --yes for a downgrade, and never with --rollback", () => {
    const options = (args: string[]) => {
      const parsed = parseShellCommand(UPGRADE, args);
      if (parsed.kind !== "ok") throw new Error(parsed.kind);
      return upgradeOptions(parsed.given);
    };
    expect(options(["--to", "4.0.0", "-y"])).toEqual({ rollback: false, to: "4.0.0", yes: true });
    expect(options(["--to=4.1.0"])).toEqual({ rollback: false, to: "4.1.0" });
    expect(options(["--to", "latest"])).toMatch(/^--to takes an exact release such as 4\.1\.0, not "latest"; usage: gentle-shell upgrade /);
    expect(options(["--to", "4.0.0", "--rollback"])).toMatch(/^--rollback and --to each choose the version/);
    expect(options(["--yes"])).toMatch(/^--yes confirms a downgrade, so it goes with --to/);
  });

  it("leaves setup no update check of its own, whatever the user's environment says", () => {
    const layout = prefixLayout({ home: "/h", platform: "linux", pins: productionPins });
    const install = { layout, piCli: "/h/pi/cli.js", versionDir: "/h/.gentle-shell/versions/x" };
    const env = privateSetupEnv(install, { PATH: "/usr/bin", GENTLE_SHELL_UPDATES: "on", GENTLE_AI_NO_SELF_UPDATE: "0", PI_SKIP_VERSION_CHECK: "" }, false);
    expect(env).toMatchObject({ GENTLE_AI_NO_SELF_UPDATE: "1", PI_SKIP_VERSION_CHECK: "1" });
  });
});

describe("each update path asks the policy first", () => {
  it("upgrade, upgrade --to and update refuse in one sentence, --rollback does not, and the offer does not ask the registry", async () => {
    const home = mkdtempSync(join(tmpdir(), "gss-policy-paths-"));
    const layout = prefixLayout({ home, platform: "linux", pins: productionPins });
    await fs.mkdir(layout.config, { recursive: true });
    await fs.writeFile(join(layout.config, "config.json"), '{"updates":"off"}\n');
    // No registry, no version folder: a path that got past the policy would fail on them, not refuse.
    const install = { layout, id: "4.0.0-1.6.0", shell: "4.0.0", pi: "1.6.0" } as PrivateInstall;
    const said = (command: string) => `gentle-shell: ${command} was not run: updates are off by ~/.gentle-shell/config/config.json; nothing was changed.`;
    for (const [args, command] of [
      [{ rollback: false }, "gentle-shell upgrade"],
      [{ rollback: false, to: "4.1.0" }, "gentle-shell upgrade --to 4.1.0"],
    ] as const) {
      const host = testHost({ home });
      expect(await upgradeInstall(install, args, host)).toBe(4);
      expect(host.lines.err).toEqual([said(command)]);
      expect(host.lines.out).toEqual([]);
    }
    const update = testHost({ home });
    expect(await updateCommand(install, ["--all"], update)).toBe(4);
    expect(update.lines.err).toEqual([said("gentle-shell update")]);
    // Pi's own forms stay Pi's.
    expect(await updateCommand(install, ["npm:some-package"], testHost({ home }))).toBeNull();
    // --rollback is not asked about the policy: it gets as far as the versions (there are none here).
    const back = testHost({ home });
    await upgradeInstall(install, { rollback: true }, back);
    expect(back.lines.err.join("\n")).not.toContain("was not run");
    // The offer: off returns at once, saying nothing, before the registry the prefix npmrc names is asked;
    // the control: on from GENTLE_SHELL_UPDATES (stronger than config.json) asks it.
    let asked = 0;
    const registry = createServer((_req, res) => {
      asked++;
      res.writeHead(200, { "content-type": "application/json" }).end('{"dist-tags":{"latest":"4.0.0"}}');
    });
    await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
    try {
      await fs.mkdir(layout.pnpm.config, { recursive: true });
      await fs.writeFile(layout.pnpm.npmrc, `registry=http://127.0.0.1:${(registry.address() as AddressInfo).port}/\n`);
      const offer = testHost({ home, terminal: true });
      expect(await startupOffer(install, offer, [])).toBeNull();
      expect([...offer.lines.out, ...offer.lines.err]).toEqual([]);
      expect(asked).toBe(0);
      expect(await startupOffer(install, testHost({ home, terminal: true, env: { GENTLE_SHELL_UPDATES: "on" } }), [])).toBeNull();
      expect(asked).toBe(1);
    } finally {
      registry.close();
    }
  });
});
