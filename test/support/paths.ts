/**
 * Where the test support files and the repository are. A bundle of these
 * modules (fixtures-cli.mjs) defines __GSS_SUPPORT_DIR__, because its
 * import.meta.url is the bundle's own location.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

declare const __GSS_SUPPORT_DIR__: string | undefined;

export const SUPPORT_DIR: string = typeof __GSS_SUPPORT_DIR__ === "string" ? __GSS_SUPPORT_DIR__ : dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = join(SUPPORT_DIR, "..", "..");
