// The shells the tests start that no Debian package gives (issue 48): nu,
// nushell's own npm release for this machine, verified against its pinned
// integrity and unpacked into the toolchain cache (./toolchain.mjs). `npm
// test` runs this file before the suite; a platform with no pinned nu prints
// so, and the tests that need one say that they skip and why. The tests read
// nuPath from it (test/support/capabilities.ts).
//   node build/test-shells.mjs
import { promises as fs } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { CACHE_DIR, ensureCached, extractTar, hostTarget, npmPack, verifyFile } from "./toolchain.mjs";

/**
 * The nu the shell tests start (issue 48): nushell's own npm release of its
 * binary for this machine, `@nushell/<target>@0.115.1`, verified and unpacked
 * once. Neither Debian 13 nor the nushell package's other platforms are
 * there to be had (the registry this machine uses serves linux-x64 alone),
 * so only that target is pinned; any other gets null, and the tests that need
 * a nu say so. The integrity was read with
 * `npm view @nushell/linux-x64@0.115.1 dist.integrity`.
 */
const NU_VERSION = "0.115.1";
const NU_INTEGRITY = {
  "linux-x64": "sha512-w6eMwPZJ/JqIEq2BgUif71fzBuNFxA1xvrIshC+bQYq44x2PgOE+x1IX+URNUBQSkCLAY9ze2Egec00RMyDtMA==",
};

/** Where the verified nu of `target` is, once ensureNu has unpacked it (a test asks without waiting). */
export function nuPath(target = hostTarget()) {
  return path.join(CACHE_DIR, "tools", `nu@${NU_VERSION}-${target}`, "bin", "nu");
}

/** The verified nu of `target`, unpacked from its registry tarball after the integrity check; null where none is pinned. */
export async function ensureNu(target = hostTarget()) {
  const integrity = NU_INTEGRITY[target];
  if (!integrity) return null;
  const spec = `@nushell/${target}@${NU_VERSION}`;
  const artifact = `registry tarball ${spec}`;
  const dir = path.dirname(path.dirname(nuPath(target)));
  await ensureCached({
    dir,
    artifact,
    expect: integrity,
    check: (marker) => marker.file === "bin/nu",
    produce: async (work, tree) => {
      const tgz = await npmPack(spec, work);
      await verifyFile(tgz, "sha512", integrity, artifact);
      await extractTar(tgz, tree, { strip: 1, filter: (p) => p === "package/bin/nu" });
      await fs.chmod(path.join(tree, "bin", "nu"), 0o755);
      const stat = await fs.stat(path.join(tree, "bin", "nu"));
      return { file: "bin/nu", size: stat.size };
    },
  });
  return nuPath(target);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const nu = await ensureNu();
  console.log(nu ? `--- nu: ${nu}` : `--- nu: none is pinned for ${hostTarget()}; the nu tests will say so`);
}
