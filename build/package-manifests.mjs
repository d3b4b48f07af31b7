/**
 * The package-manager manifests of a release (issue 42, part 2): a winget
 * manifest set, a Scoop manifest and a Homebrew formula, made from the
 * release's own SHA256SUMS, so each names an asset of that release and its
 * hash. Everything here is pure: text and objects in, file names and text
 * out; build/write-package-manifests.mjs reads SHA256SUMS and writes them.
 *
 * Decisions (build/RELEASE-NOTES.md, "Package managers", says how they are
 * published):
 * - The release's single executables are bare files, not archives, so winget
 *   gets a `portable` installer and Scoop and Homebrew install the file under
 *   the name `gentle-shell-setup`.
 * - winget runs nothing after a portable install (its manifests have no
 *   post-install command), so the install command is not run for the user:
 *   the command alias is `gentle-shell-setup`, and the locale's
 *   InstallationNotes, which winget prints when the install ends, tell the
 *   user to run `gentle-shell-setup install --yes`. Homebrew's formulae must
 *   not write outside their own prefix, so its caveats say the same. Scoop
 *   runs a manifest's post_install in the user's own session: there it runs
 *   `gentle-shell-setup install --yes`, and a failure is a warning naming the
 *   command to run again (the setup tool itself stays installed).
 * - winget's ManifestVersion is 1.12.0, the newest schema winget-pkgs accepts
 *   for submissions; newer ones exist in winget-cli but its validation refuses
 *   them. The vendored schemas in build/schemas/ are that version.
 */
import { dump } from "js-yaml";

/** Every target a release publishes a single executable for (build/build.mjs TARGETS). */
export const RELEASE_TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win-x64", "win-arm64"];
/** The command every package manager puts on PATH. */
export const COMMAND = "gentle-shell-setup";
/** What the user runs once the setup tool is installed. */
export const INSTALL_COMMAND = `${COMMAND} install --yes`;
export const WINGET_ID = "GentlemanProgramming.GentleShellSetup";
export const WINGET_MANIFEST_VERSION = "1.12.0";
export const SCOOP_MANIFEST = `${COMMAND}.json`;
export const HOMEBREW_FORMULA = `${COMMAND}.rb`;

const DESCRIPTION = "One-file installer for Gentle Shell: Pi, gentle-pi, their own Node, pnpm and Engram, verified against compiled-in pins.";
const SHORT = "Installs Gentle Shell (Pi with gentle-pi) and everything it needs";
const LICENSE = "MIT";
const AFTER_INSTALL = `Run \`${INSTALL_COMMAND}\` to install Gentle Shell; \`${COMMAND} --help\` lists the other commands.`;

/** The asset name of the single executable for `target` (build/build.mjs binaryName). */
export const binaryName = (target) => `${COMMAND}-${target}${target.startsWith("win-") ? ".exe" : ""}`;

/**
 * Parses a SHA256SUMS (`<sha256>  <name>` a line, as sha256sum writes it; `*` before the name marks binary mode).
 * @param {string} text
 * @returns {Map<string, string>} asset name -> lower-case sha256
 */
export function parseSums(text) {
  const sums = new Map();
  text.split(/\r?\n/).forEach((line, index) => {
    if (!line.trim()) return;
    const match = /^([0-9a-fA-F]{64}) [ *](\S(?:.*\S)?)\s*$/.exec(line);
    if (!match) throw new Error(`SHA256SUMS line ${index + 1} is not "<sha256>  <name>": ${JSON.stringify(line)}`);
    const [, sha256, name] = match;
    if (sums.has(name)) throw new Error(`SHA256SUMS lists ${name} twice`);
    sums.set(name, sha256.toLowerCase());
  });
  return sums;
}

/**
 * The release the manifests describe: every target's asset with its download URL and hash.
 * @param {{ version: string, home: string, sums: string, versionLine: string }} input
 *   version: the release (the tag without v); home: owner/name of the release home; sums: SHA256SUMS's text;
 *   versionLine: what the release's binary prints for --version (the formula's test expects it).
 */
export function releaseOf(input) {
  if (!/^\d+\.\d+\.\d+$/.test(input.version ?? "")) throw new Error(`the release version must be <major.minor.patch>, not ${JSON.stringify(input.version)}`);
  if (!/^[\w.-]+\/[\w.-]+$/.test(input.home ?? "")) throw new Error(`the release home must be <owner>/<name>, not ${JSON.stringify(input.home)}`);
  const versionLine = (input.versionLine ?? "").trim();
  if (!versionLine || versionLine.includes("\n") || !versionLine.startsWith(`${COMMAND} `)) {
    throw new Error(`the version line must be the one line \`${COMMAND} --version\` prints, not ${JSON.stringify(input.versionLine)}`);
  }
  const sums = parseSums(input.sums);
  const missing = RELEASE_TARGETS.map(binaryName).filter((name) => !sums.has(name));
  if (missing.length > 0) throw new Error(`SHA256SUMS has no line for ${missing.join(", ")}: the manifests need every target's binary`);
  const homepage = `https://github.com/${input.home}`;
  const download = `${homepage}/releases/download/v${input.version}`;
  const assets = Object.fromEntries(
    RELEASE_TARGETS.map((target) => {
      const name = binaryName(target);
      return [target, { name, url: `${download}/${name}`, sha256: sums.get(name) }];
    }),
  );
  return { version: input.version, home: input.home, homepage, download, versionLine, assets };
}

const yaml = (schema, object) =>
  `# yaml-language-server: $schema=https://aka.ms/winget-manifest.${schema}.${WINGET_MANIFEST_VERSION}.schema.json\n\n` +
  dump(object, { lineWidth: -1, noRefs: true, quotingType: '"' });

/**
 * winget's multi-file manifest: version, installer and default locale, named as winget-pkgs names them.
 * @returns {{ name: string, text: string, schema: "version" | "installer" | "defaultLocale", data: object }[]}
 */
export function wingetManifests(release) {
  const head = { PackageIdentifier: WINGET_ID, PackageVersion: release.version };
  const tail = { ManifestVersion: WINGET_MANIFEST_VERSION };
  const installer = {
    ...head,
    InstallerType: "portable",
    Scope: "user",
    Commands: [COMMAND],
    UpgradeBehavior: "install",
    Installers: [
      ["x64", "win-x64"],
      ["arm64", "win-arm64"],
    ].map(([Architecture, target]) => ({
      Architecture,
      InstallerUrl: release.assets[target].url,
      InstallerSha256: release.assets[target].sha256.toUpperCase(),
    })),
    ManifestType: "installer",
    ...tail,
  };
  const locale = {
    ...head,
    PackageLocale: "en-US",
    Publisher: release.home.split("/")[0],
    PublisherUrl: `https://github.com/${release.home.split("/")[0]}`,
    PublisherSupportUrl: `${release.homepage}/issues`,
    PackageName: "Gentle Shell Setup",
    PackageUrl: release.homepage,
    License: LICENSE,
    ShortDescription: SHORT,
    Description: `${DESCRIPTION} ${AFTER_INSTALL}`,
    Moniker: COMMAND,
    Tags: ["gentle-shell", "pi", "installer", "cli"],
    ReleaseNotesUrl: `${release.homepage}/releases/tag/v${release.version}`,
    InstallationNotes: AFTER_INSTALL,
    ManifestType: "defaultLocale",
    ...tail,
  };
  const version = { ...head, DefaultLocale: "en-US", ManifestType: "version", ...tail };
  return [
    { name: `${WINGET_ID}.yaml`, schema: "version", data: version },
    { name: `${WINGET_ID}.installer.yaml`, schema: "installer", data: installer },
    { name: `${WINGET_ID}.locale.en-US.yaml`, schema: "defaultLocale", data: locale },
  ].map((file) => ({ ...file, text: yaml(file.schema, file.data) }));
}

/**
 * Scoop's manifest: both Windows architectures, the file renamed to the command, checkver and autoupdate from
 * GitHub's releases (autoupdate reads each hash from the new release's SHA256SUMS).
 * @returns {{ name: string, text: string, data: object }}
 */
export function scoopManifest(release) {
  const fileUrl = (base, target) => `${base}/${binaryName(target)}#/${COMMAND}.exe`;
  const arch = (base, hash) => ({
    "64bit": { url: fileUrl(base, "win-x64"), hash: hash("win-x64") },
    arm64: { url: fileUrl(base, "win-arm64"), hash: hash("win-arm64") },
  });
  const data = {
    version: release.version,
    description: DESCRIPTION,
    homepage: release.homepage,
    license: LICENSE,
    architecture: arch(release.download, (target) => release.assets[target].sha256),
    bin: `${COMMAND}.exe`,
    post_install: [
      `& "$dir\\${COMMAND}.exe" install --yes`,
      `if ($LASTEXITCODE -ne 0) { warn "${INSTALL_COMMAND} did not finish (above); run it again once that is fixed." }`,
    ],
    notes: [
      `This install ran \`${INSTALL_COMMAND}\`, which installs Gentle Shell; \`${COMMAND} --help\` lists the other commands.`,
      `\`scoop uninstall ${COMMAND}\` removes the setup tool only; \`${COMMAND} uninstall\` removes Gentle Shell.`,
    ],
    checkver: { github: release.homepage },
    autoupdate: { architecture: arch(`${release.homepage}/releases/download/v$version`, () => ({ url: "$baseurl/SHA256SUMS" })) },
  };
  return { name: SCOOP_MANIFEST, data, text: `${JSON.stringify(data, null, 4)}\n` };
}

/** A Ruby double-quoted string literal of `text` (no interpolation: `#` is escaped too). */
export const rubyString = (text) => `"${text.replace(/[\\"#]/g, (c) => `\\${c}`)}"`;

/**
 * Homebrew's formula, for macOS and Linux on Intel and ARM: each branch its asset and hash, the file installed as the
 * command, and a test that runs `--version` and expects the release binary's own line.
 * @returns {{ name: string, text: string }}
 */
export function homebrewFormula(release) {
  const branch = (os, [arm, intel]) =>
    [
      `  on_${os} do`,
      ...[
        ["arm", arm],
        ["intel", intel],
      ].flatMap(([cpu, target]) => [
        `    on_${cpu} do`,
        `      url ${rubyString(release.assets[target].url)}`,
        `      sha256 ${rubyString(release.assets[target].sha256)}`,
        "    end",
      ]),
      "  end",
    ].join("\n");
  const text = [
    "# Generated from the release's SHA256SUMS by build/write-package-manifests.mjs: edit that, not this file.",
    "class GentleShellSetup < Formula",
    `  desc ${rubyString(SHORT)}`,
    `  homepage ${rubyString(release.homepage)}`,
    `  version ${rubyString(release.version)}`,
    `  license ${rubyString(LICENSE)}`,
    "",
    branch("macos", ["darwin-arm64", "darwin-x64"]),
    branch("linux", ["linux-arm64", "linux-x64"]),
    "",
    "  def install",
    `    binaries = Dir[${rubyString(`${COMMAND}-*`)}]`,
    `    odie ${rubyString(`expected one ${COMMAND} binary, found: `)} + binaries.join(", ") unless binaries.one?`,
    `    bin.install binaries.first => ${rubyString(COMMAND)}`,
    "  end",
    "",
    "  def caveats",
    `    ${rubyString(AFTER_INSTALL)}`,
    "  end",
    "",
    "  test do",
    `    assert_equal ${rubyString(release.versionLine)}, shell_output("#{bin}/${COMMAND} --version").chomp`,
    "  end",
    "end",
    "",
  ].join("\n");
  return { name: HOMEBREW_FORMULA, text };
}

/**
 * Every manifest file of a release, flat (winget's names carry its package identifier).
 * @param {{ version: string, home: string, sums: string, versionLine: string }} input
 * @returns {{ name: string, text: string }[]}
 */
export function packageManifests(input) {
  const release = releaseOf(input);
  return [...wingetManifests(release), scoopManifest(release), homebrewFormula(release)].map(({ name, text }) => ({ name, text }));
}
