/**
 * installers/install.sh cut short (issue 39, defect 6). `curl … | sh` runs
 * what arrives: a download cut off after `main` ran the installer without
 * the user's arguments. Every prefix of the script is piped into each shell
 * with `-s -- --yes --no-modify-path`, with a PATH of stubs only: curl hands
 * out a stand-in binary (and a SHA256SUMS that lists it), which records the
 * arguments it was started with. Only the whole script may start it, and
 * only with the user's arguments.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { promises as fs, readFileSync } from "node:fs";
import { join } from "pathe";
import { REPO_ROOT } from "../support/paths";
import { runCommand } from "../support/proc";
import { scratchDir } from "../support/scratch";

const script = readFileSync(join(REPO_ROOT, "installers", "install.sh"), "latin1");
const USER_ARGS = "--yes --no-modify-path";
let dir: string;
let stubs: string;

beforeAll(async () => {
  dir = scratchDir("gss-sh-cut-");
  stubs = join(dir, "bin");
  await fs.mkdir(stubs);
  const binary = '#!/bin/sh\nprintf \'%s %s\\n\' "$GSS_CUT" "$*" >>"$GSS_CUT_LOG"\n';
  const sums = `${createHash("sha256").update(binary).digest("hex")}  gentle-shell-setup-linux-x64\n`;
  await fs.writeFile(join(dir, "binary"), binary);
  await fs.writeFile(join(dir, "SHA256SUMS"), sums);
  // curl [options] -o FILE URL: the stand-in for the binary, or the sums that list it.
  const curl = `#!/bin/sh
out=
while [ $# -gt 1 ]; do
  if [ "$1" = -o ]; then out=$2; shift; fi
  shift
done
case $1 in
  */SHA256SUMS) cat '${dir}/SHA256SUMS' >"$out" ;;
  *) cat '${dir}/binary' >"$out" ;;
esac
`;
  await fs.writeFile(join(stubs, "curl"), curl, { mode: 0o755 });
  await fs.writeFile(join(stubs, "uname"), "#!/bin/sh\ncase $1 in -s) echo Linux ;; *) echo x86_64 ;; esac\n", { mode: 0o755 });
  // The tools the script itself needs, and nothing that reaches the network.
  for (const tool of ["awk", "tr", "mktemp", "chmod", "mkdir", "rm", "rmdir", "sha256sum", "cut", "cat", "ls"]) {
    const found = await runCommand("sh", ["-c", `command -v ${tool}`]);
    expect(found.code, tool).toBe(0);
    await fs.symlink(found.stdout.trim(), join(stubs, tool));
  }
});

/** Pipes the first n bytes of install.sh into `shell -s -- --yes --no-modify-path` for each n; returns "n arguments" per start of the binary. */
async function cuts(shell: string, lengths: number[]): Promise<string[]> {
  const log = join(dir, `${shell}.log`);
  // Found on the test's PATH: the cut runs with the stubs' PATH only.
  const found = await runCommand("sh", ["-c", `command -v ${shell}`]);
  expect(found.code, shell).toBe(0);
  await fs.writeFile(join(dir, "lengths"), `${lengths.join("\n")}\n`);
  const copy = join(dir, "install.sh");
  await fs.writeFile(copy, script, "latin1");
  const driver = `while read -r n; do
  head -c "$n" '${copy}' | PATH='${stubs}' GSS_CUT=$n GSS_CUT_LOG='${log}' HOME='${dir}' TMPDIR='${dir}' '${found.stdout.trim()}' -s -- ${USER_ARGS} >/dev/null 2>&1
done <'${join(dir, "lengths")}'`;
  await fs.writeFile(log, "");
  const r = await runCommand("sh", ["-c", driver], { timeoutMs: 300_000 });
  expect(r.code, r.stderr).toBe(0);
  return (await fs.readFile(log, "utf8")).split("\n").filter(Boolean);
}

/** The lengths whose prefix is the whole script (at most its final newline missing): the only ones that may start the binary. */
function whole(lengths: number[]): number[] {
  return lengths.filter((n) => script.slice(0, n).trimEnd() === script.trimEnd());
}

const size = Buffer.byteLength(script, "latin1");
const all = Array.from({ length: size + 1 }, (_, n) => n);
// Every line boundary, and every byte of the last three lines.
const lineEnds = all.filter((n) => n === 0 || script[n - 1] === "\n");
const tailStart = script.trimEnd().split("\n").slice(0, -3).join("\n").length;
const nearEnd = [...new Set([...lineEnds, ...all.filter((n) => n >= tailStart)])];

describe("install.sh cut short, piped into sh", () => {
  it("dash: no prefix but the whole script starts the installer, and the whole one passes the arguments", { timeout: 300_000 }, async () => {
    const started = await cuts("dash", all);
    expect(started).toEqual(whole(all).map((n) => `${n} install ${USER_ARGS}`));
  });

  for (const shell of ["bash", "zsh"]) {
    it(`${shell}: the same at every line boundary and every byte of the last lines`, { timeout: 300_000 }, async () => {
      const started = await cuts(shell, nearEnd);
      expect(started).toEqual(whole(nearEnd).map((n) => `${n} install ${USER_ARGS}`));
    });
  }
});
