/** `gentle-shell-setup bundle`: wiring only; the bundle is made by src/release/offline-bundle.ts. */
import { defineCommand } from "citty";
import { hostOf } from "./command-host";
import { checkSourceReachable } from "../install/source-reachable";
import { settle, withKnob } from "./knobs";
import { ownScript } from "../io/self";
import { TARGETS, type Target } from "../pins/types";
import { isSingleExecutable } from "../io/self";
import { installerName } from "../install/offline/format";
import { findInstallerBinaries, makeBundle } from "../release/offline-bundle";
import { tildify, tildifyText } from "../core/layout";
import { redactUrl } from "../core/secrets";

/** Every --target (repeatable, or comma-separated; `all` for every target); default this machine's. */
export function bundleTargets(rawArgs: string[], host: Target): Target[] {
  const given: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--target" || arg === "-t") given.push(rawArgs[++i] ?? "");
    else if (arg.startsWith("--target=")) given.push(arg.slice("--target=".length));
  }
  if (!given.length) return [host];
  const out: Target[] = [];
  for (const value of given.flatMap((v) => v.split(","))) {
    const t = value.trim();
    if (t === "all") out.push(...TARGETS);
    else if ((TARGETS as readonly string[]).includes(t)) out.push(t as Target);
    else throw new Error(`unknown --target ${JSON.stringify(t)}; one of ${TARGETS.join(", ")} or all`);
  }
  return [...new Set(out)];
}

export const bundleCommand = defineCommand({
  meta: { name: "bundle", description: "Write an offline bundle: everything `install --source <folder>` needs on a machine with no network" },
  args: {
    out: { type: "string", required: true, description: "The new folder to write the bundle into" },
    release: { type: "string", description: withKnob("release", "Bundle this exact Gentle Shell version instead of the latest") },
    source: { type: "string", description: withKnob("source", "Where artifacts come from: official (default), a mirror URL, or a folder") },
    target: { type: "string", description: "A target to bundle for (repeatable: linux-x64, darwin-arm64, win-x64, ... or all); default this machine's" },
    verbose: { type: "boolean", description: "Show pnpm's output" },
    json: { type: "boolean", description: "Write one JSON document on stdout (the bundle's folder, release, files, size); progress goes to stderr" },
    quiet: { type: "boolean", alias: "q", description: withKnob("quiet", "Print only failures and the result") },
  },
  async run({ args, rawArgs, data }) {
    const here = hostOf(data).target;
    const targets = bundleTargets(rawArgs, here);
    const { source, sourceFrom, release, quiet } = settle(args, rawArgs, hostOf(data).env);
    const host = hostOf(data).withMode({ quiet });
    const { env, home, platform, pins, out } = host;
    await checkSourceReachable(source, { from: sourceFrom }, host);
    // Quiet: the notes and the result only.
    const detail = quiet ? () => undefined : out;
    const found = await findInstallerBinaries(targets, here, { executable: process.execPath, isSingleExecutable: isSingleExecutable() });
    detail(`Making an offline bundle for ${targets.join(", ")} in ${args.out} (source: ${redactUrl(source ?? "official")})`);
    const progress = host.progress();
    let made: Awaited<ReturnType<typeof makeBundle>>;
    try {
      made = await makeBundle({
        out: args.out,
        pins,
        env,
        http: host.http,
        home,
        platform,
        hostTarget: here,
        targets,
        source,
        release,
        binaries: found.binaries,
        ownEngine: ownScript,
        log: (line) => detail(`  ${line}`),
        progress,
        verbose: args.verbose,
      });
    } finally {
      progress.stop();
    }
    for (const note of [...found.notes, ...made.notes]) out(`note: ${note}`);
    out(
      `Offline bundle for Gentle Shell ${made.manifest.shell} (Pi ${made.manifest.pi}): ${made.out}, ${made.manifest.files.length + 1} files, ${(made.bytes / 1024 / 1024).toFixed(1)} MiB`,
    );
    const next = `On the offline machine: install.cmd (Windows) or sh install.sh (macOS, Linux) in that folder, or ./${installerName(targets[0]!)} install --source "$PWD" from it (see its README.txt)`;
    out(next);
    const { shell, pi } = made.manifest;
    const bundle = {
      out: tildify(made.out, home),
      shell,
      pi,
      targets,
      files: made.manifest.files.length + 1,
      bytes: made.bytes,
      notes: [...found.notes, ...made.notes].map((n) => tildifyText(n, home)),
    };
    Object.assign(host.document?.fields ?? {}, { bundle, next });
  },
});
