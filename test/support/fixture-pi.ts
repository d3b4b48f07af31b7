/**
 * A fixture Pi for the `update` edge tests: a package named like the real
 * Pi, `@earendil-works/pi-coding-agent`, with Pi's `pi` bin at
 * dist/bundle/cli.js, that does one thing: `--version` prints what it was
 * packed to report (which may differ from its package version, as a broken
 * Pi release would) and everything else exits 1. It is published only to a
 * registry of the test's own (startRegistry({ isolated: true })), which a
 * prefix npmrc names as the Pi scope's registry; the real Pi is never
 * replaced anywhere else.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PI_PACKAGE } from "../../src/core/release-project";
import { packDeterministic } from "./tarball";

/** Pack the fixture Pi `version`, whose `--version` prints `reports`, into `outDir`; returns the tarball. */
export async function packFixturePi(version: string, reports: string, outDir: string): Promise<string> {
  const stage = await mkdtemp(join(tmpdir(), "gss-fixture-pi-"));
  try {
    const pkg = join(stage, "package");
    await mkdir(join(pkg, "dist", "bundle"), { recursive: true });
    const manifest = {
      name: PI_PACKAGE,
      version,
      description: "TEST FIXTURE standing in for a broken Pi release in gentle-shell-setup's tests. Not Pi.",
      license: "MIT",
      bin: { pi: "dist/bundle/cli.js" },
    };
    await writeFile(join(pkg, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    await writeFile(
      join(pkg, "dist", "bundle", "cli.js"),
      `#!/usr/bin/env node\nif (process.argv.includes("--version")) {\n  console.log(${JSON.stringify(reports)});\n} else {\n  console.error("fixture Pi: only --version");\n  process.exitCode = 1;\n}\n`,
      { mode: 0o755 },
    );
    await mkdir(outDir, { recursive: true });
    const file = join(outDir, `pi-coding-agent-${version}.tgz`);
    await packDeterministic(stage, "package", file);
    return file;
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}
