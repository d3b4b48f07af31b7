/**
 * Fixture fd and ripgrep (spec: "Launcher in a bundled install", Pi's own
 * tools): small sh programs that answer `--version` like the real tools
 * (`fd 10.3.0`; `ripgrep 15.1.0` and a features line) and otherwise print
 * one recognisable result, `gss-fixture-fd-found-this.txt` or
 * `gss-fixture-rg-found-this.txt:1:match` (so Pi's `@` file completion, which
 * runs fd, lists it), and append `<name> <arguments>` to
 * $GSS_FIXTURE_TOOL_LOG when that is set, so a test sees that Pi ran ours. They are packed like the
 * real release archives: `fd-v<v>-x86_64-unknown-linux-musl/fd` with a
 * README and a licence beside it, deterministically.
 */
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { productionPins, toolTargetSuffix } from "../../src/pins/production";
import { sha256File } from "./node-archive";
import { packDeterministic } from "./tarball";

export const FD_VERSION = productionPins.tools.fd.version;
export const RIPGREP_VERSION = productionPins.tools.ripgrep.version;
const SUFFIX = toolTargetSuffix("linux-x64");
export const FD_ARCHIVE_PATH = `fd/v${FD_VERSION}/fd-v${FD_VERSION}-${SUFFIX}`;
export const RIPGREP_ARCHIVE_PATH = `ripgrep/${RIPGREP_VERSION}/ripgrep-${RIPGREP_VERSION}-${SUFFIX}`;

export const FD_RESULT = "gss-fixture-fd-found-this.txt";
export const RG_RESULT = "gss-fixture-rg-found-this.txt:1:match";

/** The text of a fixture tool: `name` is fd or rg, `version` what `--version` prints. */
export function toolScript(name: "fd" | "rg", version: string): string {
  return `#!/bin/sh
# ${name} TEST FIXTURE for gentle-shell-setup (not the real tool). See test/support/pi-tools.ts.
if [ "\${1:-}" = "--version" ]; then
  cat <<'GSS_VERSION'
${version}
GSS_VERSION
  exit 0
fi
if [ -n "\${GSS_FIXTURE_TOOL_LOG:-}" ]; then printf '%s\\n' "${name} $*" >> "$GSS_FIXTURE_TOOL_LOG"; fi
printf '%s\\n' ${JSON.stringify(name === "fd" ? FD_RESULT : RG_RESULT)}
`;
}

async function packTool(root: string, rel: string, name: "fd" | "rg", version: string) {
  const stage = await mkdtemp(join(tmpdir(), `gss-${name}-`));
  try {
    const top = rel
      .split("/")
      .pop()!
      .replace(/\.tar\.gz$/, "");
    await mkdir(join(stage, top));
    await writeFile(join(stage, top, name), toolScript(name, version), { mode: 0o755 });
    await writeFile(join(stage, top, "README.md"), `${name} test fixture\n`);
    await writeFile(join(stage, top, "LICENSE-MIT"), "fixture\n");
    const out = join(root, rel);
    await mkdir(dirname(out), { recursive: true });
    await packDeterministic(stage, top, out);
    return { path: rel, sha256: await sha256File(out), size: (await stat(out)).size };
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

/** Both archives into the mirror's root, at their source-layout paths; their pins' path, sha256 and size. */
export async function packToolArchives(root: string) {
  const [fd, ripgrep] = await Promise.all([
    packTool(root, FD_ARCHIVE_PATH, "fd", `fd ${FD_VERSION}`),
    packTool(root, RIPGREP_ARCHIVE_PATH, "rg", `ripgrep ${RIPGREP_VERSION}\n\nfeatures:+pcre2 (test fixture)`),
  ]);
  return { fd, ripgrep };
}
