/**
 * The update policy for the Pi commands the launcher hands on to Pi that
 * install or update packages (issue 47, item 2): `gentle-shell install …`
 * and every form of `gentle-shell update …` that is Pi's own (a package
 * target, `--extensions`, `--extension <source>`, `--models`), and the
 * `update --extensions` that `update --all` sends on. Under `off` they are
 * refused in one sentence naming the source, exit 4, before Pi starts; their
 * help is not. Shell's own `update` forms ask the policy in ../commands/update.ts.
 */
import { EXIT } from "../core/errors";
import type { PiLaunch } from "../core/pi-launch";
import { policyRefusal } from "../core/update-policy";
import type { Host } from "../io/host";
import type { PrivateInstall } from "../installed/private-install";
import { updatePolicyOf } from "../installed/update-gate";

const CHANGING = new Set(["install", "update"]);

/** The exit code when the launch is such a command and the policy refuses it (said on stderr); null to go on to Pi. */
export async function piPackageGate(install: PrivateInstall, launch: PiLaunch, host: Pick<Host, "env" | "err">): Promise<number | null> {
  if (!launch.piSubcommand || launch.kind === "skip" || !CHANGING.has(launch.args[0]!)) return null;
  // The words after the subcommand are not repeated: a package source may carry a token.
  const words = launch.args.slice(1).filter((a) => a.startsWith("--") && !a.includes("="));
  const refusal = policyRefusal(await updatePolicyOf(install.layout, host.env), ["gentle-shell", launch.args[0], ...words].join(" "));
  if (!refusal) return null;
  host.err(`gentle-shell: ${refusal}.`);
  return EXIT.unchanged;
}
