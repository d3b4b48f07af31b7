/**
 * `gentle-shell-setup doctor [--fix] [--json]` (issue 41): the engine's
 * doctor (src/commands/doctor/) run by the installer on this machine's
 * install, for an install whose launcher is gone or will not start. On
 * Windows the install is in the private folder the installer chose
 * (installedLayout); doctor looks, and never claims.
 */
import { defineCommand } from "citty";
import { doctorOn, sourceWithoutFix } from "../commands/doctor/command";
import { EXIT, UserError } from "../core/errors";
import { hostOf } from "./command-host";
import { installedLayout } from "./install-run";

export const doctorCommand = defineCommand({
  meta: { name: "doctor", description: "Check the install, one line each; --fix repairs what is Gentle Shell's own (without it, nothing is changed)" },
  args: {
    fix: { type: "boolean", description: "Repair what is ours (the launcher, the PATH line, leftovers of an interrupted run), each in one line" },
    json: { type: "boolean", description: "Write one JSON document on stdout instead of lines (see docs/fleets-and-ci.md)" },
    source: { type: "string", description: "With --fix: download a runtime from this mirror or offline bundle folder instead of the install's own source" },
  },
  async run({ args, data }) {
    const options = { json: Boolean(args.json), fix: Boolean(args.fix), source: typeof args.source === "string" ? args.source : undefined };
    const refused = sourceWithoutFix(options, "gentle-shell-setup");
    if (refused) throw new UserError(refused, EXIT.usage);
    const host = hostOf(data);
    return await doctorOn(host, installedLayout(host), "gentle-shell-setup", options);
  },
});
