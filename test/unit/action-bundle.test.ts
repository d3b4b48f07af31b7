/**
 * The GitHub Action's committed bundle (installers/action/dist/index.cjs) is
 * exactly what build/action.mjs makes from installers/action/main.ts and the
 * pinned @actions packages now, so it cannot drift from its source; and
 * action.yml names that file, the Node it runs on and the interface other
 * docs describe (inputs version, source, updates; two outputs).
 */
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { pathToFileURL } from "node:url";
import { load } from "js-yaml";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/paths";

interface ActionBuild {
  ACTION_BUNDLE: string;
  bundleAction(): Promise<string>;
}

describe("the GitHub Action's bundle", () => {
  it("is the committed file, byte for byte", async () => {
    const build = (await import(/* @vite-ignore */ pathToFileURL(join(REPO_ROOT, "build", "action.mjs")).href)) as ActionBuild;
    // In a CRLF tree (test:runners replays one) the source's own line breaks can reach the bundle's strings too.
    const fresh = (await build.bundleAction()).replace(/\r\n/g, "\n");
    // A CRLF checkout (test:runners replays one) holds the same file with CRLF lines.
    const committed = readFileSync(build.ACTION_BUNDLE, "utf8").replace(/\r\n/g, "\n");
    // Not toBe on 900 KB of text: a mismatch says what to run instead of printing both.
    expect(committed === fresh, "installers/action/dist/index.cjs is stale: run npm run build:action and commit it").toBe(true);
    // One file: nothing but Node's own modules is required at run time.
    const required = [...fresh.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!);
    expect(required.length).toBeGreaterThan(0);
    expect(required.filter((name) => !builtinModules.includes(name.replace(/^node:/, "")))).toEqual([]);
  }, 60_000);

  it("is what action.yml runs, with the documented inputs and outputs", () => {
    const action = load(readFileSync(join(REPO_ROOT, "action.yml"), "utf8")) as {
      runs: { using: string; main: string };
      inputs: Record<string, { default: string }>;
      outputs: Record<string, unknown>;
    };
    expect(action.runs).toEqual({ using: "node20", main: "installers/action/dist/index.cjs" });
    expect(Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, v.default]))).toEqual({ version: "latest", source: "", updates: "off" });
    expect(Object.keys(action.outputs)).toEqual(["gentle-shell-version", "pi-version"]);
  });
});
