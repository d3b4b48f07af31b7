/**
 * gentle-shell update (spec: "Launcher in a bundled install", Pi updates
 * (S5)). The selecting forms install the newest published stable Pi for the
 * current Shell (gentle-pi stays the active version's) beside the active
 * version, without a release lockfile, verify and switch it exactly as
 * upgrade steps 4-7 do, and keep the old pair for `upgrade --rollback`. The
 * "all" forms then send `update --extensions` to Pi through the launcher's
 * normal Pi path, also when the Pi update failed. Every other form is Pi's.
 */
import { EXIT } from "../core/errors";
import { promises as fs } from "node:fs";
import { join } from "../core/native-path";
import { tildifyText } from "../core/layout";
import type { Env } from "../core/environment";
import type { Output } from "../core/errors";
import type { Host } from "../io/host";
import { redactText } from "../core/secrets";
import { compareVersions } from "../core/versions";
import { PI_PACKAGE } from "../core/release-project";
import { packageRegistry } from "../core/npmrc";
import { classifyUpdate, newestStablePi, unlockedProject, unlockedWarning } from "../core/pi-update";
import { engineArgs } from "../core/engine-flags";
import { childOutcome, startInTerminal } from "../io/child-signals";
import { readTextOrNull } from "../io/files";
import { currentEngine } from "../install/activate";
import { removeOwnFolder } from "../io/own-dir";
import { configuredRegistry } from "../install/npm-registry";
import { ensureVersionRuntime } from "../install/runtime/for-version";
import { packageDocument } from "../install/release-fetch";
import { activePiPeer } from "../install/pi-peer";
import { installVersion, versionState } from "../install/version-install";
import { ENGINE_PATH } from "../install/engine-start";
import { rememberedSource } from "../install/remembered-source";
import { besidePnpm, lockActiveVersion, verifyAndSwitch } from "../installed/version-switch";
import type { PrivateInstall } from "../installed/private-install";
import { policyRefusal } from "../core/update-policy";
import { updatePolicyOf } from "../installed/update-gate";

/** null: the form is Pi's, and the engine hands it to Pi unchanged. */
export async function updateCommand(
  install: PrivateInstall,
  args: string[],
  host: Pick<Host, "env" | "out" | "err" | "http" | "target">,
): Promise<number | null> {
  const { env } = host;
  const io = host;
  const form = classifyUpdate(args);
  if (form.kind === "pass") return null;
  if (form.kind === "refuse") {
    io.err(`gentle-shell: ${form.message}`);
    return EXIT.usage;
  }
  const { layout } = install;
  // The update policy (issue 41): off stops Shell's forms, the all forms' extensions with them, before anything runs.
  const refusal = policyRefusal(await updatePolicyOf(layout, env), "gentle-shell update");
  if (refusal) {
    io.err(`gentle-shell: ${refusal}.`);
    return EXIT.unchanged;
  }
  let failed = false;
  try {
    const lock = await lockActiveVersion(layout, install.id, io.out);
    try {
      await updatePi(install, env, io);
    } finally {
      // A staged launcher check: ours, under the lock.
      await removeOwnFolder(layout.tmp).catch(() => undefined);
      await lock.release();
    }
  } catch (error) {
    // One sentence; an all form still sends update --extensions to Pi below.
    io.err(`gentle-shell: ${redactText(tildifyText((error as Error).message, layout.home))}`);
    failed = true;
  }
  if (!form.all) return failed ? EXIT.failure : EXIT.ok;
  const extensions = await piExtensionsUpdate(install, env, form.trust, io);
  return failed ? EXIT.failure : extensions;
}

async function updatePi(install: PrivateInstall, env: Env, io: Pick<Host, "out" | "http" | "target">): Promise<void> {
  const { layout, shell } = install;
  const { out, http } = io;
  const npmrc = (await readTextOrNull(layout.pnpm.npmrc)) ?? "";
  // The registry pnpm installs Pi from: its scope's, else the configured one.
  const configured = await configuredRegistry(layout, npmrc, env);
  const registry = packageRegistry(npmrc, PI_PACKAGE, configured, env);
  // Only a Pi the active gentle-pi's peer range allows (read before the registry: a range nothing
  // satisfies, or a gentle-pi that cannot be read, changes nothing).
  const peer = await activePiPeer(layout, install.id, shell);
  const newest = newestStablePi(await packageDocument({ registry, npmrc, env, http }, PI_PACKAGE), peer);
  if (newest === install.pi) {
    out(`Pi ${newest} is the newest published Pi; Gentle Shell ${shell} with Pi ${newest} is already current, nothing was changed.`);
    return;
  }
  if (compareVersions(newest, install.pi) < 0) {
    out(`The newest published stable Pi is ${newest}, older than the active Pi ${install.pi}; nothing was changed.`);
    return;
  }
  const project = unlockedProject(shell, newest);
  // The pair may still be installed (a rollback keeps it): it is checked and switched to, not installed again.
  const reuse = (await versionState(layout, project.manifest.id)).kind === "valid";
  if (reuse) {
    out(`Gentle Shell ${shell} with Pi ${newest} is already installed in versions/${project.manifest.id}; switching to it without installing it again...`);
  } else {
    out(unlockedWarning(shell, newest));
    out(`Installing Gentle Shell ${shell} with Pi ${newest}...`);
  }
  // The same Shell: the new version gets the active version's own engine.
  const engine = await fs.readFile(join(install.versionDir, ENGINE_PATH));
  const sourceArg = await rememberedSource(layout);
  // Our pinned runtime first (with Go on Windows), as upgrade's step 3: gentle-pi never builds with the user's Go.
  if (!reuse)
    await ensureVersionRuntime(layout, { env, http: io.http, target: io.target }, sourceArg, configured).catch((error: Error) => {
      throw new Error(`${error.message}; nothing was changed`);
    });
  // Its module starts beside pnpm (upgrade's step 4, begun early).
  const early = besidePnpm({ layout, env, npmrc, sourceArg, id: project.manifest.id });
  const installed = await installVersion({ layout, distribution: project, env, engine, go: layout.platform === "win32", alongside: early }).catch(
    (error: Error) => {
      // installVersion has removed the folder it claimed; current never moved.
      throw new Error(`${error.message}; nothing was changed`);
    },
  );
  await verifyAndSwitch({
    layout,
    env,
    npmrc,
    sourceArg,
    id: project.manifest.id,
    shell,
    pi: newest,
    previous: install.id,
    ours: installed.status === "installed",
    label: `Gentle Shell ${shell} with Pi ${newest}`,
    out,
    early,
  });
  out(`Gentle Shell ${shell} with Pi ${newest} is now current (was ${install.id}). \`gentle-shell upgrade --rollback\` goes back.`);
}

/**
 * `update --extensions` for Pi, through the engine of whatever is current now
 * (the new Pi after a successful update), as the launcher would run it: the
 * user's environment, the normal Pi path (Engram decision, npmCommand, our
 * variables). Pi's own rules apply, so pinned extensions stay pinned.
 */
async function piExtensionsUpdate(install: PrivateInstall, env: Env, trust: string[], io: Output): Promise<number> {
  const { layout } = install;
  let engine: string;
  try {
    engine = await currentEngine(layout);
  } catch (error) {
    io.err(`gentle-shell: could not run Pi's update --extensions: ${(error as Error).message}`);
    return EXIT.failure;
  }
  const outcome = await childOutcome(startInTerminal(layout.node, engineArgs(engine, ["update", "--extensions", ...trust]), { env }));
  if ("code" in outcome) return outcome.code;
  io.err(`gentle-shell: could not run Pi's update --extensions: ${outcome.failed}`);
  return EXIT.failure;
}
