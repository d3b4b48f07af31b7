/**
 * A version folder's marker (spec: "Ownership rules", Versions): it reads
 * `installing <id> <pid>` while ./version-install.ts installs, then the bare id. Apart
 * from the install code, so a launch that reads it loads none of that.
 */
export const VERSION_MARKER = ".gentle-shell-version";
