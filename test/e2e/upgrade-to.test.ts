/**
 * `gentle-shell upgrade --to <version>` (issue 41, item 3) and the update
 * policy's minimumReleaseAge (item 2; with its unit and binding --to too,
 * issue 47), through the installed launcher of the
 * fixture release 4.0.0: up to 4.1.0 and back down (a downgrade, confirmed
 * with --yes), then --rollback; a version that does not exist; and the
 * cooldown, with the fixture release 4.1.0, whose signed manifest says it was
 * published today (the fixtures sign it when they start).
 */
import { describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { installed } from "../support/installed";
import { policyRoot } from "../support/policy-root";
import { runCommand } from "../support/proc";

const f = fixtures();
const [older, latest] = [f.releases[0]!, f.releases[f.releases.length - 1]!];

function gs(home: string, args: string[], extra: NodeJS.ProcessEnv = {}) {
  return runCommand(join(home, ".gentle-shell", "bin", "gentle-shell"), args, { env: homeEnv(home, extra), cwd: home });
}

const current = (home: string) => fs.readlink(join(home, ".gentle-shell", "current"));

async function writeConfig(home: string, settings: Record<string, unknown>) {
  await fs.mkdir(join(home, ".gentle-shell", "config"), { recursive: true });
  await fs.writeFile(join(home, ".gentle-shell", "config", "config.json"), `${JSON.stringify(settings)}\n`);
}

describe.concurrent("gentle-shell upgrade --to", () => {
  it("goes up to an exact release, down again only once the downgrade is confirmed, and --rollback goes back", async () => {
    const { home } = await installed(f, { release: older.shell });
    const up = await gs(home, ["upgrade", "--to", latest.shell]);
    expect(up.stderr).toBe("");
    expect(up.code).toBe(0);
    expect(up.stdout).toContain(`Gentle Shell ${latest.shell} with Pi ${latest.pi} is now current (was ${older.id})`);
    expect(await current(home)).toBe(`versions/${latest.id}`);

    // Down, without a terminal and without --yes: said, refused, nothing changed.
    const asked = await gs(home, ["upgrade", "--to", older.shell]);
    expect(asked.code).toBe(4);
    expect(asked.stdout).toContain(`Warning: Gentle Shell ${older.shell} is older than the active ${latest.shell}, so this is a downgrade;`);
    expect(asked.stderr).toBe(
      `gentle-shell: upgrade --to ${older.shell} is a downgrade from ${latest.shell}, and there is no terminal to confirm it; add --yes to downgrade. Nothing was changed.\n`,
    );
    expect(await current(home)).toBe(`versions/${latest.id}`);

    const down = await gs(home, ["upgrade", "--to", older.shell, "--yes"]);
    expect(down.stderr).toBe("");
    expect(down.code).toBe(0);
    expect(down.stdout).toContain(`Gentle Shell ${older.shell} with Pi ${older.pi} is now current (was ${latest.id})`);
    expect(await current(home)).toBe(`versions/${older.id}`);
    expect((await gs(home, ["--version"])).stdout.split("\n").slice(0, 2)).toEqual([`gentle-shell ${older.shell}`, `pi ${older.pi}`]);

    const back = await gs(home, ["upgrade", "--rollback"]);
    expect(back.code, back.stdout + back.stderr).toBe(0);
    expect(back.stdout).toContain(`Rolled back: ${latest.id} is current again (was ${older.id}).`);
    expect(await current(home)).toBe(`versions/${latest.id}`);
  });

  it("names a release that does not exist in one sentence and changes nothing", async () => {
    const { home } = await installed(f, { release: older.shell });
    const r = await gs(home, ["upgrade", "--to", "9.9.9"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^gentle-shell: Gentle Shell 9\.9\.9 has no published release at the mirror \S+ \(no signed manifest, gentle-shell-release\.json, is served there\); nothing was changed\n$/,
    );
    expect(await current(home)).toBe(`versions/${older.id}`);
    const word = await gs(home, ["upgrade", "--to", "latest"]);
    expect(word.code).toBe(2);
    expect(word.stderr).toMatch(/^gentle-shell: --to takes an exact release such as 4\.1\.0, not "latest"; usage: gentle-shell upgrade /);
  });
});

describe.concurrent("minimumReleaseAge", () => {
  it("keeps a plain upgrade and --to off a release published today, says so, and takes it at no minimum age", async () => {
    const { home } = await installed(f, { release: older.shell });
    await writeConfig(home, { minimumReleaseAge: "1d" });
    const manifest = JSON.parse(await fs.readFile(join(f.mirrorRoot, "releases", `v${latest.shell}`, "gentle-shell-release.json"), "utf8")) as {
      published: string;
    };
    expect(Date.now() - Date.parse(manifest.published)).toBeLessThan(24 * 60 * 60 * 1000);
    const young = `Gentle Shell ${latest.shell} was published ${manifest.published}, and ~/.gentle-shell/config/config.json asks for releases at least 1 day old`;
    const r = await gs(home, ["upgrade"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${young}; nothing was changed.\n`);
    // --to is bound too (issue 47): refused in one sentence, exit 4.
    const to = await gs(home, ["upgrade", "--to", latest.shell]);
    expect(to.stderr).toBe(`gentle-shell: gentle-shell upgrade --to ${latest.shell} was not run: ${young}; nothing was changed.\n`);
    expect(to.code).toBe(4);
    expect(await current(home)).toBe(`versions/${older.id}`);

    // No minimum age: no cooldown.
    await writeConfig(home, { minimumReleaseAge: "0m" });
    const plain = await gs(home, ["upgrade"]);
    expect(plain.code, plain.stdout + plain.stderr).toBe(0);
    expect(await current(home)).toBe(`versions/${latest.id}`);
  });

  it("lets an explicit --to past the cooldown when the machine-wide file allows exact versions", async () => {
    const { home } = await installed(f, { release: older.shell });
    const { root, file } = await policyRoot('{ "minimumReleaseAge": "30d", "allowExactVersions": true }\n');
    const env = { GSS_TEST_POLICY_ROOT: root };
    const plain = await gs(home, ["upgrade"], env);
    expect(plain.stdout).toContain(
      `the machine-wide policy ${file} asks for releases at least 30 days old; nothing was changed. \`gentle-shell upgrade --to ${latest.shell}\` installs it now.`,
    );
    const r = await gs(home, ["upgrade", "--to", latest.shell], env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await current(home)).toBe(`versions/${latest.id}`);
  });

  it("refuses a bare number, naming the unit to write, and changes nothing", async () => {
    const { home } = await installed(f, { release: older.shell });
    await writeConfig(home, { minimumReleaseAge: 1440 });
    const r = await gs(home, ["upgrade"]);
    expect(r.stderr).toBe(
      'gentle-shell: gentle-shell upgrade was not run: ~/.gentle-shell/config/config.json sets minimumReleaseAge to 1440, which has no unit; write it as a string with one, such as "1440m" (minutes), "1440h" (hours) or "1440d" (days), so updates count as off; nothing was changed.\n',
    );
    expect(r.code).toBe(4);
    expect(await current(home)).toBe(`versions/${older.id}`);
  });
});
