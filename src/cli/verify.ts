/**
 * `gentle-shell-setup verify <bundle>`: check a whole offline bundle from a
 * trusted copy of the installer before running anything on it. The work is
 * src/install/offline/verify.ts; this binds the pins and prints.
 */
import { defineCommand } from "citty";
import { EXIT, UserError } from "../core/errors";
import { hostOf } from "./command-host";
import { verifyBundle } from "../install/offline/verify";

export const verifyCommand = defineCommand({
  meta: {
    name: "verify",
    description: "Check an offline bundle (signature, every file, every package) with this trusted gentle-shell-setup before running anything on it",
  },
  args: {
    bundle: { type: "positional", required: true, description: "The offline bundle's folder" },
  },
  async run({ args, data }) {
    const { out, pins, http } = hostOf(data);
    if (!args.bundle) throw new UserError("verify needs the bundle's folder: gentle-shell-setup verify <folder>", EXIT.usage);
    const result = await verifyBundle(args.bundle, pins, http);
    for (const line of result.lines) out(`✔ ${line}`);
    for (const problem of result.problems) out(`✖ ${problem}`);
    if (!result.ok) {
      throw new UserError(`do not install from ${args.bundle}: ${result.problems.length} thing(s) in it are not what the signed release and the pins say`);
    }
    out(`The bundle is the signed Gentle Shell release, down to every package; it is safe to install from.`);
  },
});
