import type { WriteMode } from "../provider-settings";
import { PostPut } from "./post-put";
import { ServerSideApply } from "./server-side-apply";
import type { WriteContext, WriteStrategy } from "./types";

export { NameTaken, type WriteOptions, type WriteStrategy } from "./types";

/** The write strategy the settings choose. */
export function writeStrategy(context: WriteContext, mode: WriteMode): WriteStrategy {
  return mode.serverSideApply ? new ServerSideApply(context, mode.force) : new PostPut(context);
}
