/** An offline bundle's manifest that is damaged says so and names its file and folder (src/install/offline/format.ts). */
import { describe, expect, it } from "vitest";
import { readBundleManifest } from "../../src/install/offline/format";

const sound = { schema: 2, shell: "4.1.0", pi: "1.6.0", id: "4.1.0-1.6.0", targets: ["linux-x64"], packages: 3, files: ["a.tgz"] };

describe("readBundleManifest", () => {
  it("reads a sound manifest", () => {
    expect(readBundleManifest(JSON.stringify(sound), "/media/gs").id).toBe("4.1.0-1.6.0");
  });

  it("names the file and the bundle's folder when the manifest is not JSON, or lacks its versions", () => {
    expect(() => readBundleManifest(JSON.stringify(sound).slice(0, 30), "/media/gs")).toThrow(
      "offline-bundle.json in /media/gs is not valid JSON: the bundle is damaged; copy it again",
    );
    expect(() => readBundleManifest(JSON.stringify({ ...sound, pi: undefined }), "/media/gs")).toThrow(
      /^offline-bundle\.json in \/media\/gs is not a valid offline bundle manifest: the bundle's Pi version must be an exact version .*got undefined$/,
    );
    expect(() => readBundleManifest(JSON.stringify({ ...sound, targets: "all" }), "/media/gs")).toThrow(
      "offline-bundle.json in /media/gs does not list its targets",
    );
  });
});
