/**
 * The time limits of the integration and e2e projects: one generous outer limit per
 * test file, and no fixed limit of its own on a step that waits on an
 * install, npm or pnpm (it waits on the child's exit or output). Load makes
 * a step slower, never wrong, so a limit load can meet is a limit that fails
 * a correct run.
 */

/**
 * The whole file: its hooks and tests together (file-limit.ts), and so any one test or hook (vitest.config.ts).
 * The longest file took 475 s on a quiet 2-core machine; machines here differ by 2×, and load adds more.
 */
export const FILE_LIMIT_MS = 30 * 60_000;

/** A wait for a child's output (a screen, a line) fails with what it saw before the file's limit would cut it short. */
export const OUTPUT_WAIT_MS = FILE_LIMIT_MS - 2 * 60_000;
