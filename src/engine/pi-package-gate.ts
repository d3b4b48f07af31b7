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
import { policyRefusal } from "../core/update-policy";
import type { Host } from "../io/host";
import type { PrivateInstall } from "../installed/private-install";
import { updatePolicyOf } from "../installed/update-gate";

/** The exit code when the policy refuses the launch's package command (PiLaunch.packageCommand; said on stderr); null to go on to Pi. */
export async function piPackageGate(install: PrivateInstall, command: string, host: Pick<Host, "env" | "err">): Promise<number | null> {
  const refusal = policyRefusal(await updatePolicyOf(install.layout, host.env), command);
  if (!refusal) return null;
  host.err(`gentle-shell: ${refusal}.`);
  return EXIT.unchanged;
}
