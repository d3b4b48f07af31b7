import { defineCommand } from "citty";
import { STEP_ORDER, STEPS } from "../install/step-plan";
import { migrationGate, olderThanGlobal, removalCommand } from "../core/migration-rules";
import { redactUrl } from "../core/secrets";
import { EXIT, UserError } from "../core/errors";
import { installedLayout, installHere, SHARED_ARGS } from "./install-run";
import { withKnob } from "./knobs";
import { installGate, releaseChange } from "../installed/install-gate";
import { installerStart } from "./installer-start";
import { tableOf } from "./command-host";
import { completionFiles } from "./completions";
import { findGlobalShell, recordReleaseChannel, removeAfterInstall, shadowWarning, type Removal } from "./migration-wiring";
import { tildify } from "../core/layout";
import { SETUP_COMMAND } from "../install/setup-step";
import { documentError } from "./json";
import { failedRemoval, recordEnd, recordPlan, type PlanEntry } from "./install-json";
import { spaceLine } from "../core/space-need";
import { freeSpace } from "../io/disk";
import { installSpace } from "../install/space-check";
import { confirm } from "../io/confirm";

/** The install succeeded but its setup step failed: distinct from a failed install (1) and a usage error (2). */
export const SETUP_FAILED_EXIT = EXIT.setupFailed;

export const installCommand = defineCommand({
  meta: { name: "install", description: "Install Gentle Shell into ~/.gentle-shell" },
  args: {
    yes: { type: "boolean", alias: "y", description: "Install without asking" },
    "dry-run": { type: "boolean", description: "Print the plan and change nothing" },
    release: { type: "string", description: withKnob("release", "Install this exact Gentle Shell version instead of the latest") },
    setup: {
      type: "boolean",
      default: true,
      description: `Run ${SETUP_COMMAND} at the end (--no-setup to skip; the first interactive gentle-shell then runs it once)`,
    },
    completions: {
      type: "boolean",
      description: "Also write tab completions of gentle-shell and gentle-shell-setup for the shell the PATH entry is for (undone by self-uninstall)",
    },
    "keep-global": { type: "boolean", description: "Keep a global gentle-pi that npm or pnpm installed (by default the plan removes it at the end)" },
    json: { type: "boolean", description: "Write one JSON document on stdout (plan, steps, final state, next action); progress and prompts go to stderr" },
    ...SHARED_ARGS,
  },
  async run({ args, rawArgs, data }) {
    const { host, layout, knobs } = await installerStart(args, rawArgs, data);
    const { source, quiet, noModifyPath } = knobs;
    const { env, home, pins, out } = host;
    // The update policy (issue 47): under off, a rerun over an active version only repairs it (src/installed/install-gate.ts).
    const policyGate = await installGate(installedLayout(host), env, knobs.release);
    if (policyGate.kind === "refuse") throw new UserError(`${policyGate.message}.`, EXIT.unchanged);
    const release = policyGate.kind === "repair" ? policyGate.release : knobs.release;
    const noSetup = args.setup === false;
    // Quiet: the plan only when it is asked about (a question needs its plan), then failures and the result.
    const asks = !args.yes && !args["dry-run"];
    const say = quiet && !asks ? () => undefined : out;

    // An existing global Gentle Shell (spec: "The web installer"): the plan with removal, and no setup step.
    const found = await findGlobalShell(layout, host, release ?? null);
    // A release older than a global Gentle Shell would shadow it: refused before anything is installed.
    const older = olderThanGlobal(found.owner, release ?? null);
    if (older) throw new UserError(older, EXIT.unchanged);
    const migrating = found.gate.migrate && !args["keep-global"] ? found.gate : null;
    const owner = found.owner;

    if (policyGate.kind === "repair" && policyGate.line) say(policyGate.line);
    say(`Gentle Shell will be installed into ${tildify(layout.prefix, home)}:`);
    const plan: PlanEntry[] = [];
    for (const id of STEP_ORDER) {
      if (id === "path" && noModifyPath) plan.push({ id, action: "skip", text: "skipped (--no-modify-path); the line to add is printed at the end" });
      else if (id === "setup" && migrating)
        plan.push({ id, action: "none", text: `not in this plan; the first interactive gentle-shell runs ${SETUP_COMMAND} once` });
      else if (id === "setup" && noSetup)
        plan.push({ id, action: "skip", text: `skipped (--no-setup); the first interactive gentle-shell runs ${SETUP_COMMAND} once` });
      else plan.push({ id, action: "run", text: STEPS[id].plan });
    }
    if (migrating && owner.kind === "manager") {
      const text = `once every step above passed, remove your global gentle-pi ${migrating.installed} with ${migrating.manager} (${removalCommand(migrating.manager)}); --keep-global keeps it`;
      plan.push({ id: "remove-global-shell", action: "run", text });
    }
    for (const entry of plan) say(`  - ${entry.id}: ${entry.text}`);
    if (!(migrating && owner.kind === "manager") && found.onPath) {
      const why = found.gate.migrate ? "--keep-global" : found.gate.reason;
      say(`Your other gentle-shell, ${tildify(found.onPath, home)}, stays as it is (${why}).`);
    }
    say(`Artifacts from: ${redactUrl(source ?? "the official downloads")}`);
    say(spaceLine(await installSpace(layout, pins, host.target), await freeSpace(layout.prefix), tildify(layout.prefix, home)));
    say("Your own node, npm, pnpm, Pi and ~/.npmrc are not changed.");
    recordPlan(host, { prefix: tildify(layout.prefix, home), source: source ?? "official", dryRun: Boolean(args["dry-run"]), plan });
    if (args["dry-run"]) {
      out("Dry run: nothing was changed.");
      await recordEnd(host, layout, [], "Run the same command without --dry-run to install.");
      return EXIT.unchanged;
    }
    if (!args.yes) {
      // Under --json the host asks on stderr, with the rest of what is not the document.
      const reply = await confirm(host, "Proceed? [Y/n] ", "yes");
      if (reply === "no terminal") throw new UserError("no terminal to ask for confirmation; run again with --yes to install", EXIT.unchanged);
      if (reply !== "yes") {
        out("Cancelled: nothing was changed.");
        documentError(host, "the install was cancelled at its question; nothing was changed");
        await recordEnd(host, layout, [], "Run the installer again and answer yes, or pass --yes.");
        return EXIT.unchanged;
      }
    }

    let gateRelease: string | null = null;
    let refused: string | null = null;
    const { result, layout: used } = await installHere(
      host,
      layout,
      {
        source,
        release,
        noModifyPath,
        completions: args.completions === true && !noModifyPath ? completionFiles(tableOf(data)) : undefined,
        verbose: args.verbose,
        setup: migrating ? "none" : noSetup ? "skip" : "run",
      },
      (shell, pi) => {
        gateRelease = shell;
        // The latest release, known only now: still refused before its version is installed.
        const change = releaseChange(policyGate, shell, pi);
        refused = change ? `${change}.` : olderThanGlobal(owner, shell);
        if (refused) throw new Error(refused);
      },
    );
    if (!result.ok && refused) throw new UserError(refused, EXIT.unchanged);
    if (!result.ok) {
      const failed = result.outcomes.find((o) => o.status === "failed");
      const kept = migrating ? " Your global gentle-pi was left untouched." : "";
      out(`Gentle Shell was not installed: the ${failed?.id} step failed. Fix what it says and run the installer again; finished steps are reused.${kept}`);
      documentError(host, `the ${failed?.id} step failed: ${failed?.detail}`);
      await recordEnd(host, used, result.outcomes, `Fix what the ${failed?.id} step says and run the installer again; finished steps are reused.${kept}`);
      return EXIT.failure;
    }
    let removal: Removal = { line: "", detail: "", removed: false, failed: false, command: null };
    if (migrating) {
      await recordReleaseChannel(used, host);
      // The gate again, now that the release is known: never replace a newer global Gentle Shell.
      const gate = migrationGate({ owner, targetSupported: true, release: gateRelease });
      removal = gate.migrate
        ? await removeAfterInstall(used, env, owner)
        : {
            line: `- remove-global-shell: skipped (${gate.reason}); your global gentle-pi stays`,
            detail: `${gate.reason}; your global gentle-pi stays`,
            removed: false,
            failed: false,
            command: null,
          };
      out(removal.line);
    }
    out(`Gentle Shell is installed: ${tildify(used.launcher, home)}`);
    if (result.path) out(result.path.nextStep);
    const shadow = shadowWarning(used, env, result);
    if (shadow) out(shadow);
    // A failed removal fails the command; a failed setup step says so with its own code.
    let code: number = removal.failed ? EXIT.failure : EXIT.ok;
    let next = result.path?.nextStep ?? null;
    if (removal.failed) documentError(host, `the remove-global-shell step failed: ${removal.detail}`);
    if (result.setup?.status === "failed") {
      out(
        `Gentle AI is not set up yet, because the setup step failed; Gentle Shell works without it, and you can run ${SETUP_COMMAND} to try again (the first interactive gentle-shell also tries it once).`,
      );
      documentError(host, `the setup step failed: ${result.setup.detail}; Gentle Shell is installed and works without Gentle AI`);
      next = `Run ${SETUP_COMMAND} to set up Gentle AI for Pi.`;
      code = SETUP_FAILED_EXIT;
    }
    const removalStep = migrating
      ? [
          {
            id: "remove-global-shell",
            title: "global Gentle Shell",
            status: removal.removed ? "done" : removal.failed ? "failed" : "skipped",
            detail: removal.detail,
          } as const,
        ]
      : [];
    // A failed removal keeps the outcome and adds removeGlobal, so the command to run by hand is a field of its own.
    await recordEnd(host, used, [...result.outcomes, ...removalStep], next, failedRemoval(removal));
    return code;
  },
});
