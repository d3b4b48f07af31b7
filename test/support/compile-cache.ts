/**
 * vitest setup file: Node's compile cache (Pi enables it, and NODE_COMPILE_CACHE
 * turns it on for every node a test starts) goes to a scratch folder of this
 * test file, removed when the file ends, instead of piling up in the system's
 * temporary folder (Pi's default). Children inherit it through homeEnv.
 */
import { scratchDir } from "./scratch";

process.env.NODE_COMPILE_CACHE = scratchDir("gss-compile-cache-");
