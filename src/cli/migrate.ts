import { defineCommand } from "citty";
import { tildify } from "../core/layout";
import { EXIT, UserError } from "../core/errors";
import { isYes, migrationExplanation, migrationGate, removalCommand, removalQuestion } from "../core/migration-rules";
import { checkSourceReachable } from "../install/source-check";
import { hostOf } from "./host-data";
import { checkPrefix, installContext, installHere, SHARED_ARGS } from "./install-run";
import { settle } from "./knobs";
import { findGlobalShell, recordReleaseChannel, removeAfterInstall, shadowWarning } from "./migration-wiring";
import { releaseFirst } from "./release-first";

export const migrateCommand = defineCommand({
  meta: { name: "migrate", description: "Move a Gentle Shell that npm or pnpm installed globally to the bundled install in ~/.gentle-shell" },
  args: {
    release: { type: "string", description: "Move to this exact Gentle Shell version instead of the latest (or GENTLE_SHELL_RELEASE)" },
    "dry-run": { type: "boolean", description: "Say what would happen and change nothing" },
    ...SHARED_ARGS,
  },
  async run({ args, rawArgs, data }) {
    const { source, sourceFrom, release, quiet, noModifyPath } = settle(args, rawArgs, hostOf(data).env);
    const host = installContext(hostOf(data).withMode({ quiet }));
    checkPrefix(host);
    const { env, home, pins, layout, out } = host;
    // Quiet: the explanation only before a real move (its question comes at the end), then failures and the result.
    const explain = quiet && args["dry-run"] ? () => undefined : out;
    await checkSourceReachable(source, { from: sourceFrom });
    // The release first: the user's npm and pnpm are asked nothing before it reads as published.
    let first: { shell: string; pi: string } | null;
    try {
      first = await releaseFirst(host, source, release);
    } catch (error) {
      throw new UserError(`${(error as Error).message}; nothing was changed, and your global gentle-pi was not looked at`, EXIT.failure);
    }
    const found = await findGlobalShell(layout, env, pins, first?.shell ?? release ?? null, true);
    const { owner, gate } = found;
    if (!gate.migrate || owner.kind !== "manager") {
      const reason = gate.migrate ? "no global gentle-pi was found" : gate.reason;
      throw new UserError(`Nothing to migrate: ${reason}; nothing was changed (a new install is gentle-shell-setup install)`, EXIT.unchanged);
    }
    for (const line of migrationExplanation({
      prefix: layout.prefix,
      home,
      agent: layout.agent,
      manager: gate.manager,
      installed: gate.installed,
      shell: first?.shell ?? release ?? null,
      pi: first?.pi ?? null,
    })) {
      explain(line);
    }
    if (args["dry-run"]) {
      out(`Dry run: nothing was changed. The removal would be asked at the end: ${removalCommand(gate.manager)}`);
      process.exitCode = EXIT.unchanged;
      return;
    }

    const { result, layout: used } = await installHere(host, {
      source,
      release,
      noModifyPath,
      verbose: args.verbose,
      setup: "none",
      onRelease: (shell) => {
        // The gate's last condition, as soon as the signed release says which one it is.
        const now = migrationGate({ owner, targetSupported: true, release: shell });
        if (!now.migrate) throw new Error(now.reason);
      },
    });
    if (!result.ok) {
      const failed = result.outcomes.find((o) => o.status === "failed");
      out(`The migration stopped at the ${failed?.id} step (${failed?.detail}); your global gentle-pi was left untouched and still works.`);
      process.exitCode = EXIT.failure;
      return;
    }
    out(`Gentle Shell is installed: ${tildify(used.launcher, home)}`);
    await recordReleaseChannel(used, host);
    if (result.path) out(result.path.nextStep);
    out(`The first interactive gentle-shell runs gentle-shell setup once.`);

    const reply = await host.ask(removalQuestion(gate.manager));
    if ("noTerminal" in reply) {
      out(`No terminal to ask, so your global gentle-pi was kept; to remove it, run: ${removalCommand(gate.manager)}`);
    } else if (!("answer" in reply) || !isYes(reply.answer)) {
      out(`Your global gentle-pi was kept; to remove it later, run: ${removalCommand(gate.manager)}`);
    } else {
      const removal = await removeAfterInstall(used, env, owner);
      out(removal.line);
      if (removal.failed) process.exitCode = EXIT.failure;
    }
    const shadow = shadowWarning(used, env, result);
    if (shadow) out(shadow);
  },
});
