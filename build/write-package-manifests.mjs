#!/usr/bin/env node
/**
 * Writes the package-manager manifests of a release (build/package-manifests.mjs)
 * from its SHA256SUMS, one file each, into --out:
 *
 *   node build/write-package-manifests.mjs --version 4.1.0 --home Gentleman-Programming/gentle-shell-setup \
 *     --sums dist/SHA256SUMS --version-line "$(dist/gentle-shell-setup-linux-x64 --version)" --out package-manifests
 *
 * Bad input is one sentence on stderr and exit 1.
 */
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { packageManifests } from "./package-manifests.mjs";

const OPTIONS = ["--version", "--home", "--sums", "--version-line", "--out"];

/** @param {string[]} args */
function parseArgs(args) {
  const values = {};
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (!OPTIONS.includes(flag)) throw new Error(`unknown argument ${JSON.stringify(flag)} (expected ${OPTIONS.join(", ")})`);
    if (value === undefined) throw new Error(`${flag} needs a value`);
    values[flag] = value;
  }
  const missing = OPTIONS.filter((flag) => values[flag] === undefined);
  if (missing.length > 0) throw new Error(`missing ${missing.join(", ")}`);
  return values;
}

try {
  const options = parseArgs(process.argv.slice(2));
  const sums = await fs.readFile(options["--sums"], "utf8").catch(() => {
    throw new Error(`cannot read ${options["--sums"]}`);
  });
  const files = packageManifests({ version: options["--version"], home: options["--home"], sums, versionLine: options["--version-line"] });
  await fs.mkdir(options["--out"], { recursive: true });
  for (const file of files) {
    await fs.writeFile(path.join(options["--out"], file.name), file.text);
    process.stdout.write(`${path.join(options["--out"], file.name)}\n`);
  }
} catch (error) {
  process.stderr.write(`write-package-manifests: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
