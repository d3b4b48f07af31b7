#!/usr/bin/env node
/**
 * node bench/instructions.mjs [runs] [-- <binary>...]: instruction counts
 * (valgrind --tool=callgrind, all threads) of `gentle-shell-setup --version`
 * and `--help` against `node -e 0` on the same pinned Node 24.21.0. Unlike
 * wall time these do not depend on what else the machine runs, so they can
 * be taken on a loaded machine. Medians of `runs` runs (default 3). Binaries:
 * dist/gentle-shell-setup-<host target> by default; pass others (an older
 * build) after `--` to compare.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureNodeBinary, hostTarget } from "../build/toolchain.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const split = args.indexOf("--");
const runs = Number((split === -1 ? args : args.slice(0, split))[0] ?? 3);
const binaries = split === -1 ? [join(repo, "dist", `gentle-shell-setup-${hostTarget()}`)] : args.slice(split + 1);

function instructions(command, commandArgs, work) {
  const out = join(work, `cg-${Math.random().toString(16).slice(2)}`);
  const r = spawnSync("valgrind", ["--tool=callgrind", `--callgrind-out-file=${out}`, command, ...commandArgs], {
    cwd: work,
    encoding: "utf8",
    env: { PATH: "/usr/bin:/bin", HOME: work },
  });
  const m = /I\s+refs:\s+([\d,]+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`callgrind of ${command} ${commandArgs.join(" ")} failed: ${r.stderr.slice(-500)}`);
  return Number(m[1].replace(/,/g, ""));
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

execFileSync("valgrind", ["--version"]);
const node = await ensureNodeBinary();
const work = mkdtempSync(join(tmpdir(), "gss-instructions-"));
try {
  const cases = [["node -e 0", node, ["-e", "0"]]];
  for (const bin of binaries) for (const a of ["--version", "--help"]) cases.push([`${bin} ${a}`, bin, [a]]);
  const counts = new Map(cases.map(([name]) => [name, []]));
  // Alternating, so every case sees the same machine.
  for (let i = 0; i < runs; i++) for (const [name, command, commandArgs] of cases) counts.get(name).push(instructions(command, commandArgs, work));
  const base = median(counts.get("node -e 0"));
  for (const [name, values] of counts) {
    const m = median(values);
    process.stdout.write(
      `${name}: median ${(m / 1e6).toFixed(1)}M instructions (${values.map((v) => (v / 1e6).toFixed(1)).join(", ")}), ${(m / base).toFixed(2)}× node -e 0\n`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
