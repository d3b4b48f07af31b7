/**
 * `gentle-shell-setup status [--json] [--memory | --no-memory]`: the
 * engine's status report (src/commands/status/) for this machine's install,
 * read without writing anything. On Windows the install is in the private
 * folder the installer chose (installedLayout); status looks, and never claims.
 */
import { defineCommand } from "citty";
import { statusOn } from "../commands/status/command";
import { hostOf } from "./command-host";
import { installedLayout } from "./install-run";

export const statusCommand = defineCommand({
  meta: { name: "status", description: "Show what is installed: versions, runtimes, launcher, PATH entry, source and memory; changes nothing" },
  args: {
    json: { type: "boolean", description: "Write one JSON document on stdout instead of lines (see docs/fleets-and-ci.md)" },
    memory: { type: "boolean", description: "Check the memory decision on the local Engram endpoint (default: yes, but no with --json)" },
  },
  async run({ args, data }) {
    const host = hostOf(data);
    return await statusOn(host, installedLayout(host), { json: Boolean(args.json), memory: args.memory });
  },
});
