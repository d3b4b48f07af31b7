/** The two npm packages a Gentle Shell version pins exactly: Pi, and gentle-pi (the Shell). */
export const PI_PACKAGE = "@earendil-works/pi-coding-agent";
export const SHELL_PACKAGE = "gentle-pi";
