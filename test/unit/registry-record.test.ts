import { describe, expect, it } from "vitest";
import { recordedRegistryFor, registryFingerprint, registryRecordText, type RegistryInputs } from "../../src/core/registry-record";

const base: RegistryInputs = {
  npmCli: "/h/.gentle-shell/runtime/node-24.21.0/lib/node_modules/npm/bin/npm-cli.js",
  npmVersion: "11.19.0",
  files: [
    ["/h/.gentle-shell/pnpm/config/npmrc", ""],
    ["/h/.gentle-shell/runtime/node-24.21.0/.npmrc", null],
    ["/h/.gentle-shell/npm/npmrc", "registry=${CORP_REGISTRY}\n"],
    ["/h/.gentle-shell/runtime/node-24.21.0/lib/node_modules/npm/npmrc", null],
  ],
  env: { CORP_REGISTRY: "http://127.0.0.1:4873/", HOME: "/h" },
};

describe("the record of npm's default registry", () => {
  const fingerprint = registryFingerprint(base);

  it("is used only for the inputs it was made from", () => {
    const text = registryRecordText(fingerprint, "http://127.0.0.1:4873/");
    expect(recordedRegistryFor(text, fingerprint)).toBe("http://127.0.0.1:4873/");
    expect(recordedRegistryFor(text, registryFingerprint({ ...base, npmVersion: "11.20.0" }))).toBeNull();
  });

  it("changes with every file npm reads, the variables they name, and npm itself", () => {
    const changed: RegistryInputs[] = [
      { ...base, npmCli: "/h/.gentle-shell/runtime/node-24.22.0/lib/node_modules/npm/bin/npm-cli.js" },
      { ...base, npmVersion: null },
      ...base.files.map((_, i) => ({ ...base, files: base.files.map(([p, t], j) => [p, j === i ? `${t ?? ""}registry=http://127.0.0.1:1/\n` : t] as const) })),
      { ...base, files: base.files.map(([p, t], j) => [p, j === 1 ? "" : t] as const) },
      { ...base, env: { ...base.env, CORP_REGISTRY: "http://127.0.0.1:9/" } },
      { ...base, env: { HOME: "/h" } },
    ];
    const prints = changed.map(registryFingerprint);
    expect(new Set([fingerprint, ...prints]).size).toBe(prints.length + 1);
  });

  it("does not change with a variable no file names (npm's query runs without npm_* variables)", () => {
    expect(registryFingerprint({ ...base, env: { ...base.env, npm_config_registry: "http://127.0.0.1:9/", PATH: "/bin" } })).toBe(fingerprint);
  });

  it("never stores a variable's value", () => {
    expect(registryRecordText(fingerprint, "http://127.0.0.1:4873/")).not.toContain("CORP_REGISTRY");
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ["malformed JSON", "{"],
    ["not an object", "[]"],
    ["no registry", JSON.stringify({ fingerprint })],
    ["a registry that is not a URL", JSON.stringify({ fingerprint, registry: "latest" })],
  ])("a record with %s is not used", (_what, text) => {
    expect(recordedRegistryFor(text, fingerprint)).toBeNull();
  });
  it("no record is not used", () => {
    expect(recordedRegistryFor(null, fingerprint)).toBeNull();
  });
});
