/**
 * Kill-test holds (issue 47): in a test build, a step mark (./step-times.ts)
 * named by GSS_HOLD_AT stops its process there until a test kills it, so a
 * kill lands at that point every time instead of racing the work after it.
 *
 * This file is what a release build has: nothing ever holds. A test build
 * (build/bundle.mjs, given fixture pins) loads ./kill-hold-test.ts in its
 * place, and test/integration/build.test.ts checks that a release binary
 * carries none of it.
 */
import type { Env } from "../core/environment";

export function holdAt(_mark: string, _env: Env): void {}
