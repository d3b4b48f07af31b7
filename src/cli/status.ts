/**
 * `gentle-shell-setup status [--json] [--memory | --no-memory]`: the
 * engine's status report (src/engine/status/) for this machine's install,
 * read without writing anything. On Windows the install is in the private
 * folder the installer chose: %LOCALAPPDATA%\gentle-shell, or the fallback
 * %USERPROFILE%\.gentle-shell-bundle when only that one carries the bundle
 * marker; status looks, and never claims.
 */
import { existsSync } from "node:fs";
import { defineCommand } from "citty";
import { join } from "pathe";
import { envValue } from "../core/environment";
import { prefixLayout, type Layout } from "../core/layout";
import { stdOutput } from "../io/output";
import { WINDOWS_BUNDLE_MARKER, WINDOWS_FALLBACK_FOLDER, WINDOWS_FIRST_FOLDER } from "../install/windows-private/rule";
import { runStatus, statusReport } from "../engine/status/command";
import { statusDocument } from "../engine/status/render";
import { jsonError, jsonFields } from "./json";
import { hostStatusProbes } from "../engine/status/probes";
import { hostContext, type HostContext } from "./install-run";

function installedLayout(host: HostContext): Layout {
  if (host.platform !== "win32") return host.layout;
  const local = envValue(host.env, "LOCALAPPDATA", "win32");
  const first = local ? join(local, WINDOWS_FIRST_FOLDER) : null;
  const fallback = join(host.home, WINDOWS_FALLBACK_FOLDER);
  const prefix = first && !existsSync(join(first, WINDOWS_BUNDLE_MARKER)) && existsSync(join(fallback, WINDOWS_BUNDLE_MARKER)) ? fallback : (first ?? fallback);
  return prefixLayout({ home: host.home, platform: "win32", pins: host.pins, windowsPrefix: prefix });
}

export const statusCommand = defineCommand({
  meta: { name: "status", description: "Show what is installed: versions, runtimes, launcher, PATH entry, source and memory; changes nothing" },
  args: {
    json: { type: "boolean", description: "Write one JSON document on stdout instead of lines (README: --json)" },
    memory: { type: "boolean", description: "Check the memory decision on the local Engram endpoint (default: yes, but no with --json)" },
  },
  async run({ args }) {
    const host = hostContext();
    const layout = installedLayout(host);
    const context = { layout, pins: host.pins, env: host.env, probes: hostStatusProbes(layout, host.env) };
    const options = { json: Boolean(args.json), memory: args.memory };
    const fields = jsonFields();
    if (fields) {
      // The document is ./json.ts's to write: the report goes into its fields.
      const doc = statusDocument(await statusReport(context, options));
      fields.status = doc.status;
      if (typeof doc.error === "string") jsonError(doc.error);
      process.exitCode = Number(doc.exitCode);
      return;
    }
    const code = await runStatus(context, options, stdOutput);
    if (code !== 0) process.exitCode = code;
  },
});
