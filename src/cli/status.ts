/**
 * `gentle-shell-setup status [--json] [--memory | --no-memory]`: the
 * engine's status report (src/engine/status/) for this machine's install,
 * read without writing anything. On Windows the install is in the private
 * folder the installer chose (installedLayout); status looks, and never claims.
 */
import { defineCommand } from "citty";
import { stdOutput } from "../io/output";
import { runStatus, statusReport } from "../engine/status/command";
import { statusDocument } from "../engine/status/render";
import { jsonError, jsonFields } from "./json";
import { hostStatusProbes } from "../engine/status/probes";
import { hostContext, installedLayout } from "./install-run";

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
