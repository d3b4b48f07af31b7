/**
 * `gentle-shell-setup migrate` (spec: "Migration from a global install"): moves a
 * Gentle Shell that npm or pnpm installed globally (gentle-pi) to the bundled
 * install, reading the release first (./migration-release.ts). Not the Engram
 * store's migration, which is the engine's `memory migrate`
 * (src/commands/memory/migrate.ts).
 */
import { defineCommand } from "citty";
import { tildify } from "../core/layout";
import { EXIT, UserError } from "../core/errors";
import { migrationExplanation, migrationGate, removalCommand, removalQuestion, type Gate, type Owner } from "../core/migration-rules";
import { installedLayout, installHere, SHARED_ARGS } from "./install-run";
import { withKnob } from "./knobs";
import { migrateRefusal } from "../installed/install-gate";
import { installerStart } from "./installer-start";
import { findGlobalShell, recordReleaseChannel, removeAfterInstall, shadowWarning } from "./migration-wiring";
import { readMigrationRelease } from "./migration-release";
import { confirm } from "../io/confirm";

/** A global Gentle Shell the gate lets move: its owner, npm or pnpm, and the gate's answer. */
interface Moving {
  owner: Extract<Owner, { kind: "manager" }>;
  gate: Extract<Gate, { migrate: true }>;
}

export const migrateCommand = defineCommand({
  meta: { name: "migrate", description: "Move a Gentle Shell that npm or pnpm installed globally to the bundled install in ~/.gentle-shell" },
  args: {
    release: { type: "string", description: withKnob("release", "Move to this exact Gentle Shell version instead of the latest") },
    "dry-run": { type: "boolean", description: "Say what would happen and change nothing" },
    ...SHARED_ARGS,
  },
  async run({ args, rawArgs, data }) {
    const { host, layout, knobs } = await installerStart(args, rawArgs, data);
    const { source, release, quiet, noModifyPath } = knobs;
    const { env, home, out } = host;
    // The update policy (issue 47): off refuses migrate before anything is looked at (src/installed/install-gate.ts).
    const refusal = await migrateRefusal(installedLayout(host), env);
    if (refusal) throw new UserError(`${refusal}.`, EXIT.unchanged);
    // Quiet: the explanation only before a real move (its question comes at the end), then failures and the result.
    const explain = quiet && args["dry-run"] ? () => undefined : out;
    // The release first: the user's npm and pnpm are asked nothing before it reads as published.
    let first: { shell: string; pi: string } | null;
    try {
      first = await readMigrationRelease(host, source, release);
    } catch (error) {
      throw new UserError(`${(error as Error).message}; nothing was changed, and your global gentle-pi was not looked at`, EXIT.failure);
    }
    /** The owner probe and the gate for a release read as published; the explanation once they allow the move. */
    const probe = async (pair: { shell: string; pi: string | null }): Promise<Moving | string> => {
      const { owner, gate } = await findGlobalShell(layout, host, pair.shell, true);
      if (!gate.migrate || owner.kind !== "manager") return gate.migrate ? "no global gentle-pi was found" : gate.reason;
      const { prefix, agent } = layout;
      for (const line of migrationExplanation({ prefix, home, agent, manager: gate.manager, installed: gate.installed, ...pair })) explain(line);
      return { owner, gate };
    };
    let moving: Moving | null = null;
    if (first) {
      const probed = await probe(first);
      if (typeof probed === "string") {
        throw new UserError(`Nothing to migrate: ${probed}; nothing was changed (a new install is gentle-shell-setup install)`, EXIT.unchanged);
      }
      moving = probed;
    }
    if (args["dry-run"]) {
      // Without a release read first (npm's default registry, which only our npm names), nothing is probed.
      out(
        moving
          ? `Dry run: nothing was changed. The removal would be asked at the end: ${removalCommand(moving.gate.manager)}`
          : "Dry run: nothing was changed, and your global gentle-pi was not looked at: the latest release is read only once the install has put its own npm in place; name one with --release to see the move",
      );
      return EXIT.unchanged;
    }

    // Without a release read first, the install reads it (with its own npm, after the runtimes), and only then is the owner asked.
    let nothing: string | null = null;
    const { result, layout: used } = await installHere(
      host,
      layout,
      {
        source,
        release,
        noModifyPath,
        verbose: args.verbose,
        setup: "none",
      },
      async (shell, pi) => {
        if (!moving) {
          const probed = await probe({ shell, pi });
          if (typeof probed === "string") {
            nothing = probed;
            throw new Error(probed);
          }
          moving = probed;
        }
        // The gate's last condition, as soon as the signed release says which one it is.
        const now = migrationGate({ owner: moving.owner, targetSupported: true, release: shell });
        if (!now.migrate) throw new Error(now.reason);
      },
    );
    if (!result.ok && nothing !== null) {
      throw new UserError(
        `Nothing to migrate: ${nothing}; no Gentle Shell version was installed and your PATH was not changed (a new install is gentle-shell-setup install)`,
        EXIT.unchanged,
      );
    }
    if (!result.ok) {
      const failed = result.outcomes.find((o) => o.status === "failed");
      out(`The migration stopped at the ${failed?.id} step (${failed?.detail}); your global gentle-pi was left untouched and still works.`);
      return EXIT.failure;
    }
    // Every step passed, so the version step read the release and the probe above allowed the move.
    const { owner, gate } = moving as Moving;
    out(`Gentle Shell is installed: ${tildify(used.launcher, home)}`);
    await recordReleaseChannel(used, host);
    if (result.path) out(result.path.nextStep);
    out(`The first interactive gentle-shell runs gentle-shell setup once.`);

    let code: number = EXIT.ok;
    const reply = await confirm(host, removalQuestion(gate.manager), "no");
    if (reply === "no terminal") {
      out(`No terminal to ask, so your global gentle-pi was kept; to remove it, run: ${removalCommand(gate.manager)}`);
    } else if (reply !== "yes") {
      out(`Your global gentle-pi was kept; to remove it later, run: ${removalCommand(gate.manager)}`);
    } else {
      const removal = await removeAfterInstall(used, env, owner);
      out(removal.line);
      if (removal.failed) code = EXIT.failure;
    }
    const shadow = shadowWarning(used, env, result);
    if (shadow) out(shadow);
    return code;
  },
});
