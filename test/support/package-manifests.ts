/**
 * The checks of the package-manager manifests (build/package-manifests.mjs)
 * that run here, shared by test/unit/package-manifests.test.ts and the
 * release rehearsal: each winget file against winget's official schema of
 * its kind, the Scoop manifest against Scoop's schema (both vendored in
 * build/schemas/, see its README), and what each manifest says it downloads:
 * the URL and sha256 of every asset, read back from the manifest text.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { load } from "js-yaml";
import { HOMEBREW_FORMULA, SCOOP_MANIFEST, WINGET_ID, WINGET_MANIFEST_VERSION } from "../../build/package-manifests.mjs";
import { REPO_ROOT } from "./paths";

const SCHEMAS = join(REPO_ROOT, "build", "schemas");
export const WINGET_FILES = {
  version: `${WINGET_ID}.yaml`,
  installer: `${WINGET_ID}.installer.yaml`,
  defaultLocale: `${WINGET_ID}.locale.en-US.yaml`,
} as const;

const ajv = new Ajv({ allErrors: true, strict: false });
// The formats these schemas name, which ajv leaves to ajv-formats (not a dependency): checked here, not ignored.
ajv.addFormat("uri", (text: string) => URL.canParse(text));
ajv.addFormat("regex", (text: string) => {
  try {
    new RegExp(text);
    return true;
  } catch {
    return false;
  }
});
ajv.addFormat("date", /^\d{4}-\d{2}-\d{2}$/);
ajv.addFormat("long", { type: "number", validate: (n: number) => Number.isInteger(n) });

const compiled = new Map<string, ValidateFunction>();
function schema(file: string): ValidateFunction {
  let validate = compiled.get(file);
  if (!validate) {
    validate = ajv.compile(JSON.parse(readFileSync(join(SCHEMAS, file), "utf8")));
    compiled.set(file, validate);
  }
  return validate;
}

/** The schema's complaints about `data` ("" when it is valid): each error's path and message, one a line. */
function complaints(validate: ValidateFunction, data: unknown): string {
  if (validate(data)) return "";
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`).join("\n");
}

/** winget's schema of that kind, for a manifest's YAML text. */
export const wingetComplaints = (kind: keyof typeof WINGET_FILES, text: string) =>
  complaints(schema(`winget-manifest.${kind}.${WINGET_MANIFEST_VERSION}.json`), load(text));

/** Scoop's schema, for a manifest's JSON text. */
export const scoopComplaints = (text: string) => complaints(schema("scoop-manifest.schema.json"), JSON.parse(text));

/** Every schema complaint of a release's manifest files (name -> text), "" when all are valid. */
export function allComplaints(files: Map<string, string>): string {
  const found: string[] = [];
  for (const [kind, name] of Object.entries(WINGET_FILES)) {
    const problems = wingetComplaints(kind as keyof typeof WINGET_FILES, files.get(name) ?? "");
    if (problems) found.push(`${name}:\n${problems}`);
  }
  const scoop = scoopComplaints(files.get(SCOOP_MANIFEST) ?? "{}");
  if (scoop) found.push(`${SCOOP_MANIFEST}:\n${scoop}`);
  return found.join("\n");
}

export interface Download {
  /** Who downloads it: "winget x64", "scoop arm64", "homebrew linux intel", … */
  by: string;
  url: string;
  sha256: string;
}

/**
 * What each manifest downloads, read back from its text: winget's installers, Scoop's architectures (the URL
 * without its `#/` rename) and the formula's url/sha256 pairs, each under the on_<os>/on_<cpu> blocks it stands in.
 */
export function downloads(files: Map<string, string>): Download[] {
  const found: Download[] = [];
  const installer = load(files.get(WINGET_FILES.installer)!) as { Installers: { Architecture: string; InstallerUrl: string; InstallerSha256: string }[] };
  for (const i of installer.Installers) found.push({ by: `winget ${i.Architecture}`, url: i.InstallerUrl, sha256: i.InstallerSha256.toLowerCase() });
  const scoop = JSON.parse(files.get(SCOOP_MANIFEST)!) as { architecture: Record<string, { url: string; hash: string }> };
  for (const [arch, entry] of Object.entries(scoop.architecture)) found.push({ by: `scoop ${arch}`, url: entry.url.replace(/#\/.*$/, ""), sha256: entry.hash });
  let os = "";
  let cpu = "";
  let url = "";
  for (const line of files.get(HOMEBREW_FORMULA)!.split("\n")) {
    const block = /^\s*on_(macos|linux|arm|intel) do$/.exec(line);
    if (block) [os, cpu] = block[1] === "macos" || block[1] === "linux" ? [block[1], ""] : [os, block[1]!];
    const value = /^\s*(url|sha256) "([^"]*)"$/.exec(line);
    if (value?.[1] === "url") url = value[2]!;
    if (value?.[1] === "sha256") found.push({ by: `homebrew ${os} ${cpu}`, url, sha256: value[2]! });
  }
  return found;
}

/** The formula's test block: the command it runs (with `#{bin}` left in) and the line it expects. */
export function formulaTest(formula: string): { command: string; expected: string } {
  const match = /^ {2}test do\n {4}assert_equal "((?:[^"\\]|\\.)*)", shell_output\("([^"]*)"\)\.chomp\n {2}end$/m.exec(formula);
  if (!match) throw new Error('the formula has no test block of the form assert_equal "<line>", shell_output("<command>").chomp');
  return { expected: match[1]!.replace(/\\(.)/g, "$1"), command: match[2]! };
}
