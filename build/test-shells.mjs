// The shells the tests start that no Debian package gives (issue 48): nu,
// nushell's own npm release for this machine, verified against its pinned
// integrity and unpacked into the toolchain cache (build/toolchain.mjs).
// `npm test` runs this before the suite; a platform with no pinned nu prints
// so, and the tests that need one say that they skip and why.
//   node build/test-shells.mjs
import { ensureNu, hostTarget } from "./toolchain.mjs";

const nu = await ensureNu();
console.log(nu ? `--- nu: ${nu}` : `--- nu: none is pinned for ${hostTarget()}; the nu tests will say so`);
