import { productionPins } from "./production";
import type { Pins } from "./types";

/** Replaced at bundle time by a fixture pins file in a test build (build/build.mjs --pins). */
export const compiledPins: Pins = productionPins;
