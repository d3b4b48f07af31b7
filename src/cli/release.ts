/**
 * `gentle-shell-setup release build --shell <v> --pi <v> --out <dir>`,
 * `release verify --assets <dir>` (spec: "Release workflow"), and
 * `release sign --assets <dir> --key <file>` / `release check --assets
 * <dir>` (the signed manifest), run by the maintainers' CI. The work lives
 * in src/release/assets.ts and release-sign.ts; this binds the machine.
 */
import { defineCommand } from "citty";
import { EXIT, UserError } from "../core/errors";
import { ownScript } from "../io/self";
import type { Host } from "../io/host";
import { hostOf } from "./command-host";
import { buildReleaseAssets, verifyReleaseAssets, type ReleaseContext } from "../release/assets";
import { checkSignedFolder, signRelease } from "../release/sign";

function context(host: Host, source: string | undefined): ReleaseContext {
  return {
    pins: host.pins,
    target: host.target,
    platform: host.platform,
    env: host.env,
    http: host.http,
    home: host.home,
    source,
    say: (line) => host.out(`  ${line}`),
  };
}

const build = defineCommand({
  meta: { name: "build", description: "Resolve the release lockfile with our pinned pnpm and write the two distribution assets" },
  args: {
    shell: { type: "string", required: true, description: "The gentle-pi release version (exact)" },
    pi: { type: "string", required: true, description: "The Pi version the release pins (exact)" },
    out: { type: "string", required: true, description: "The folder to write the assets into" },
    source: { type: "string", description: "Where our Node and pnpm come from: official (default), a mirror URL, or a folder" },
  },
  async run({ args, data }) {
    if (!args.shell || !args.pi || !args.out) throw new UserError("release build needs --shell, --pi and --out", EXIT.usage);
    const written = await buildReleaseAssets({ ...context(hostOf(data), args.source), shell: args.shell, pi: args.pi, out: args.out });
    hostOf(data).out(`Wrote ${written.json} and ${written.lock}`);
  },
});

const verify = defineCommand({
  meta: { name: "verify", description: "Install the two distribution assets in a temporary prefix and require the launcher to report their versions" },
  args: {
    assets: { type: "string", required: true, description: "The folder holding the two distribution assets" },
    source: { type: "string", description: "Where our Node and pnpm come from: official (default), a mirror URL, or a folder" },
  },
  async run({ args, data }) {
    if (!args.assets) throw new UserError("release verify needs --assets", EXIT.usage);
    const { shell, pi } = await verifyReleaseAssets({ ...context(hostOf(data), args.source), assets: args.assets, engine: ownScript() });
    hostOf(data).out(`Verified: the installed launcher reports gentle-shell ${shell} and pi ${pi}`);
  },
});

const sign = defineCommand({
  meta: { name: "sign", description: "Write the signed release manifest over every asset in a folder (the workflow's last step)" },
  args: {
    assets: { type: "string", required: true, description: "The folder holding every asset of the release" },
    key: { type: "string", required: true, description: "The Ed25519 private key (PEM, PKCS#8) whose public half this build compiles in" },
    shell: { type: "string", description: "The release version the assets must be (exact)" },
  },
  async run({ args, data }) {
    if (!args.assets || !args.key) throw new UserError("release sign needs --assets and --key", EXIT.usage);
    const signed = await signRelease({ assets: args.assets, keyFile: args.key, pins: hostOf(data).pins, shell: args.shell });
    hostOf(data).out(`Signed Gentle Shell ${signed.shell} (Pi ${signed.pi}) with key ${signed.key}: ${signed.assets.join(", ")}`);
  },
});

const check = defineCommand({
  meta: { name: "check", description: "Check a signed release folder as every installer will: the signature, then each listed asset" },
  args: {
    assets: { type: "string", required: true, description: "The signed release folder" },
  },
  async run({ args, data }) {
    if (!args.assets) throw new UserError("release check needs --assets", EXIT.usage);
    const checked = await checkSignedFolder(args.assets, hostOf(data).pins);
    hostOf(data).out(`Gentle Shell ${checked.shell} (Pi ${checked.pi}): signature by key ${checked.key} verified, ${checked.assets.length} assets exact`);
  },
});

export const releaseCommand = defineCommand({
  meta: { name: "release", description: "Build, verify, sign and check a release (for the release workflow)" },
  subCommands: { build, verify, sign, check },
});
