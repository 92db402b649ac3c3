import type { Logger } from "../builder/logger";

/** The logging calls the controller makes: the builder's, so one logger serves both. Never given secrets. */
export type ControllerLogger = Logger;

export const silentLogger: ControllerLogger = { info() {}, warn() {}, error() {} };
