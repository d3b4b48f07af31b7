/** gentle-shell-setup's own version (not `gentle-shell setup`'s), replaced by the build from package.json. */
declare const __GSS_VERSION__: string | undefined;
export const SETUP_VERSION: string = typeof __GSS_VERSION__ === "string" ? __GSS_VERSION__ : "0.0.0-dev";
