/**
 * doctor's login-shell check (issue 41) with the real bash, zsh and fish
 * (.ci/system-tools installs them), nu (build/test-shells.mjs) and, where
 * there is one, pwsh (not on this machine: ci.yml's linux job, whose ubuntu-latest has one): after a real install for each shell
 * ($SHELL chooses the file the PATH line goes to), a new shell of that kind
 * finds our launcher; a startup-file line that puts a foreign gentle-shell's
 * folder first is named by that file's real path, as broken. The PATH line
 * gone from .bashrc: the new bash finds nothing and says so, `--fix` puts
 * the line back (test/e2e/doctor.test.ts covers that repair itself), after
 * which the new bash finds ours. A startup file that hangs is only warned
 * about, within the timeout, its children ended; one that exits early is
 * named; what the startup files print is never shown.
 */
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { fixtures } from "../support/context";
import { requires, shellProgram } from "../support/capabilities";
import { installed, type Installed } from "../support/installed";
import { runCommand } from "../support/proc";
import { onlyDocument, schemaErrors } from "../support/result-schema";

const f = fixtures();

type Shell = "bash" | "zsh" | "fish" | "nu" | "pwsh";
const BINARY: Record<Shell, string> = { bash: "/bin/bash", zsh: "/usr/bin/zsh", fish: "/usr/bin/fish", nu: shellProgram("nu"), pwsh: shellProgram("pwsh") };
/** A startup file of each $SHELL read after the install's line, how it puts a folder first, and how it prints. */
const STARTUP: Record<Shell, { file: string; prepend: (dir: string) => string; noise: string }> = {
  bash: { file: ".bashrc", prepend: (dir) => `export PATH="${dir}:$PATH"\n`, noise: "echo STARTUP-NOISE-7731\n" },
  zsh: { file: ".zshrc", prepend: (dir) => `export PATH="${dir}:$PATH"\n`, noise: "echo STARTUP-NOISE-7731\n" },
  // conf.d (ours) is read before config.fish, so what config.fish prepends comes first.
  fish: { file: ".config/fish/config.fish", prepend: (dir) => `set -gx PATH '${dir}' $PATH\n`, noise: "echo STARTUP-NOISE-7731\n" },
  // env.nu (ours) is read before config.nu, likewise.
  nu: {
    file: ".config/nushell/config.nu",
    prepend: (dir) => `$env.PATH = ($env.PATH | split row (char esep) | prepend '${dir}')\n`,
    noise: "print STARTUP-NOISE-7731\n",
  },
  pwsh: {
    file: ".config/powershell/profile.ps1",
    prepend: (dir) => `$env:PATH = '${dir}' + [IO.Path]::PathSeparator + $env:PATH\n`,
    noise: "Write-Output STARTUP-NOISE-7731\n",
  },
};
const SEEN: Record<Shell, string> = { bash: "a new bash", zsh: "a new zsh login", fish: "a new fish login", nu: "a new nu login", pwsh: "a new pwsh login" };

function doctor(i: Installed, shell: Shell, args: string[] = []) {
  return runCommand(f.binary!, ["doctor", ...args], { env: { ...i.env, SHELL: BINARY[shell], ENGRAM_STARTUP_POLICY: "disabled" }, cwd: i.home });
}

interface DocCheck {
  id: string;
  status: string;
  line: string;
  repair?: { kind: string; sentence: string };
}

async function loginCheck(i: Installed, shell: Shell): Promise<{ code: number | null; check: DocCheck | undefined }> {
  const r = await doctor(i, shell, ["--json"]);
  const doc = onlyDocument(r.stdout);
  expect(schemaErrors(doc)).toEqual([]);
  const checks = (doc.doctor as { checks: DocCheck[] }).checks;
  return { code: r.code, check: checks.find((c) => c.id === `path.login:${shell}`) };
}

/** A foreign gentle-shell: <root>/foreign/bin/gentle-shell, a link to the real file <root>/foreign/real/gs. */
async function foreignCommand(root: string): Promise<{ bin: string; real: string }> {
  const real = join(root, "foreign", "real", "gs");
  await fs.mkdir(join(root, "foreign", "real"), { recursive: true });
  await fs.writeFile(real, "#!/bin/sh\necho someone else's gentle-shell\n", { mode: 0o755 });
  await fs.mkdir(join(root, "foreign", "bin"));
  await fs.symlink(real, join(root, "foreign", "bin", "gentle-shell"));
  return { bin: join(root, "foreign", "bin"), real };
}

describe("doctor asks a new shell of the receipt's kind for gentle-shell", () => {
  for (const shell of ["bash", "zsh", "fish", "nu", "pwsh"] as const) {
    it(`${shell}: finds our launcher after the install; a foreign folder put first is named by its file's real path`, async (ctx) => {
      if (shell === "nu" || shell === "pwsh") requires(ctx, shell);
      const i = shell === "bash" ? await installed(f) : await installed(f, { env: { SHELL: BINARY[shell] } });
      const rc = join(i.home, STARTUP[shell].file);
      // What the startup files print is never shown.
      await fs.mkdir(join(rc, ".."), { recursive: true });
      await fs.appendFile(rc, STARTUP[shell].noise);
      const lines = await doctor(i, shell);
      expect(lines.code, lines.stdout + lines.stderr).toBe(0);
      expect(lines.stdout).toContain(`  ok     ${SEEN[shell]} finds our launcher`);
      expect(lines.stdout + lines.stderr).not.toContain("STARTUP-NOISE-7731");
      expect((await loginCheck(i, shell)).check).toEqual({ group: "path", id: `path.login:${shell}`, status: "ok", line: `${SEEN[shell]} finds our launcher` });

      const foreign = await foreignCommand(i.root);
      await fs.appendFile(rc, STARTUP[shell].prepend(foreign.bin));
      const { code, check } = await loginCheck(i, shell);
      expect(code).toBe(1);
      expect(check).toMatchObject({
        status: "broken",
        line: `${SEEN[shell]} runs ${foreign.real} (found as ${join(foreign.bin, "gentle-shell")}), not our launcher: it comes first on that shell's PATH`,
        repair: { kind: "command" },
      });
      expect(check!.repair!.sentence).toContain(`remove ${join(foreign.bin, "gentle-shell")}`);
      const told = await doctor(i, shell);
      expect(told.stdout).toContain(`  broken ${check!.line}\n         run: ${check!.repair!.sentence}\n`);
    });
  }

  it("the PATH line gone from .bashrc: a new bash finds no gentle-shell; after --fix it finds ours", async () => {
    const i = await installed(f);
    const bashrc = join(i.home, ".bashrc");
    await fs.writeFile(bashrc, (await fs.readFile(bashrc, "utf8")).replace(/^.*# gentle-shell bundled install\n/m, ""));
    const told = await doctor(i, "bash");
    expect(told.code).toBe(1);
    expect(told.stdout).toContain("  broken our PATH line is missing from ~/.bashrc");
    expect(told.stdout).toContain("  warn   a new bash does not find gentle-shell: our entry in ~/.bashrc does not reach it");
    const fixed = await doctor(i, "bash", ["--fix"]);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(fixed.stdout).toContain("repaired: put our PATH line back in ~/.bashrc");
    expect(fixed.stdout).toContain("  ok     a new bash finds our launcher");
    expect((await loginCheck(i, "bash")).check?.status).toBe("ok");
  });

  it("a startup file that hangs is warned about within the timeout, its children ended; one that exits early is named", async () => {
    const i = await installed(f);
    const bashrc = join(i.home, ".bashrc");
    const original = await fs.readFile(bashrc, "utf8");
    await fs.writeFile(bashrc, `sleep 617.25 &\nsleep 618.25\n${original}`);
    const started = Date.now();
    const { code, check } = await loginCheck(i, "bash");
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(code).toBe(0);
    expect(check).toMatchObject({
      status: "warn",
      line: "a new bash did not answer within 5 s; its startup files (~/.bashrc among them) are slow or wait for input",
    });
    const left = spawnSync("ps", ["-eo", "args"], { encoding: "utf8" }).stdout;
    expect(left).not.toMatch(/sleep 61[78]\.25/);

    await fs.writeFile(bashrc, `exit 3\n${original}`);
    expect((await loginCheck(i, "bash")).check).toMatchObject({
      status: "warn",
      line: "a new bash could not be asked (it exited with code 3 before answering); its startup files include ~/.bashrc",
    });
  });
});
