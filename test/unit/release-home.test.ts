/**
 * One release home (issue 27): the one-liners' installers, the binary's
 * official source and the release workflow name the same repository and the
 * same tag form, so a release cut as README's "Releasing" says is reachable
 * by curl | sh, irm | iex and the binary itself.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { productionPins } from "../../src/pins/production";
import { artifactLocation, RELEASE_HOME, RELEASE_TAG_PREFIX, releasePath } from "../../src/core/source";
import { REPO_ROOT } from "../support/paths";

const read = (rel: string) => readFileSync(join(REPO_ROOT, rel), "utf8");
/** Every GitHub repository a text names in a releases URL. */
const releaseRepos = (text: string) => [...text.matchAll(/github\.com\/([\w.-]+\/[\w.-]+)\/releases\//g)].map((m) => m[1]);

describe("one release home", () => {
  it("install.sh fetches the setup binary from the home's newest published release", () => {
    const sh = read("installers/install.sh");
    expect(sh).toContain(`https://github.com/${RELEASE_HOME}/releases/latest/download`);
    expect(new Set(releaseRepos(sh))).toEqual(new Set([RELEASE_HOME]));
  });

  it("install.ps1 does too, in its default and in every one-liner it documents", () => {
    const ps1 = read("installers/install.ps1");
    expect(ps1).toContain(`'https://github.com/${RELEASE_HOME}/releases/latest/download'`);
    expect(releaseRepos(ps1).length).toBeGreaterThanOrEqual(4);
    expect(new Set(releaseRepos(ps1))).toEqual(new Set([RELEASE_HOME]));
  });

  it("the binary's official source reads a release's assets from the home, under the tag v<version>", () => {
    expect(RELEASE_TAG_PREFIX).toBe("v");
    const url = artifactLocation({ kind: "official", registry: "http://127.0.0.1:9/" }, releasePath("4.1.0", "gentle-shell-release.json"));
    expect(url).toBe(`https://github.com/${RELEASE_HOME}/releases/download/v4.1.0/gentle-shell-release.json`);
    // The other repositories it names are other projects' (Engram, and the fd and ripgrep Pi downloads).
    expect(new Set(releaseRepos(read("src/core/source.ts")))).toEqual(new Set(["Gentleman-Programming/engram", "sharkdp/fd", "BurntSushi/ripgrep"]));
  });

  it("release.yml publishes to the home only, from tags of the same form", () => {
    const yml = read(".github/workflows/release.yml");
    expect(yml).toMatch(new RegExp(`^ {2}RELEASE_HOME: ${RELEASE_HOME.replace(/[.]/g, "\\.")}$`, "m"));
    expect(yml).toContain(`tags: ["${RELEASE_TAG_PREFIX}*"]`);
    // Every upload and the publication go to RELEASE_HOME, never to whatever repository runs the workflow.
    expect(yml).not.toContain("GH_REPO: ${{ github.repository }}");
    expect(yml.match(/GH_REPO: \$\{\{ env\.RELEASE_HOME \}\}/g)?.length).toBe(3);
    expect(yml).toContain('test "$GITHUB_REPOSITORY" = "$RELEASE_HOME"');
  });

  it("release.yml keeps every upload a draft until the last job, which publishes it unless the run is a dry run", () => {
    const yml = read(".github/workflows/release.yml");
    const publish = yml.indexOf("gh release edit");
    expect(publish).toBeGreaterThan(yml.indexOf("release check --assets dist"));
    expect(yml.slice(publish)).not.toContain("gh release create");
    expect(yml).toContain('gh release edit "$GITHUB_REF_NAME" --draft=false --latest');
    for (const create of yml.match(/gh release create [^\n]*/g) ?? []) expect(create).toContain("--draft");
  });

  it("the release's Pi is the one pin committed in production.ts, read by build/release-pi.mjs, never a variable or an input", () => {
    const yml = read(".github/workflows/release.yml");
    expect(yml).toContain('pi="$(node build/release-pi.mjs)"');
    expect(yml).not.toMatch(/inputs\.pi\b|vars\.GENTLE_SHELL_PI/);
    // Not recorded yet: the script refuses in one sentence, so no release is cut without it.
    expect(productionPins.release.pi).toBeNull();
    const r = spawnSync(process.execPath, [join(REPO_ROOT, "build", "release-pi.mjs")], { encoding: "utf8" });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim()).toBe("release-pi: no exact Pi is recorded in src/pins/production.ts (release.pi); record the Pi this release pins, then tag again");
  });
});
