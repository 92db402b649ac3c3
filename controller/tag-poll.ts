// Moving tags: a Service whose `source.oci` names a tag and no digest mints again when the tag moves. Every
// interval the poll asks the registry again about each such tag, all at once through the registries' lanes
// (lanes.ts: a few calls per host, equal tags asked once, so a hanging registry delays only its own
// Services' polls), and queues a sync only for those whose tag now points elsewhere. A failed poll changes nothing: the Service keeps
// its revision, and the next poll asks again. A Service whose retry backs off is left to that retry.

import type { ApiObject } from "../sdk/client/types";
import { applyDefaults, type ServiceSpec } from "../sdk/schema";
import type { BundleSources } from "./bundle";
import type { KindCache } from "./cluster";
import type { ControllerLogger } from "./logger";

/** `--tag-poll-interval` default: as often as git sources are polled. */
export const DEFAULT_TAG_POLL_INTERVAL_MS = 30_000;

export interface TagPollOptions {
  services: Pick<KindCache, "list">;
  bundles: BundleSources;
  /** 0 turns the poll off. */
  intervalMs: number;
  log: ControllerLogger;
  /** Queues a sync of the Service. */
  enqueue(name: string): void;
  /** Whether a retry of the Service backs off (its failure is the retry's to ask about again). */
  retryPending(name: string): boolean;
  /** Aborted when the controller stops; an in-flight registry request is aborted with it. */
  signal: AbortSignal;
}

export function startTagPoll(options: TagPollOptions): void {
  const { intervalMs, signal } = options;
  if (intervalMs <= 0) return;
  let timer: NodeJS.Timeout | undefined;
  // The next round is timed from the end of the last one, so rounds never overlap on a slow registry.
  const schedule = () => {
    timer = setTimeout(() => {
      pollOnce(options).then(schedule, (error: unknown) => {
        if (signal.aborted) return;
        options.log.error({ error: String(error) }, "tag poll failed");
        schedule();
      });
    }, intervalMs);
    timer.unref();
  };
  signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
  schedule();
}

async function pollOnce(options: TagPollOptions): Promise<void> {
  const { services } = options;
  await Promise.all(services.list().map((service) => pollService(options, service)));
}

async function pollService(options: TagPollOptions, service: ApiObject): Promise<void> {
  const { bundles, log } = options;
  if (options.signal.aborted) return;
  const { name } = service.metadata;
  if (service.metadata.deletionTimestamp !== undefined || options.retryPending(name)) return;
  const { oci } = (applyDefaults("Service", service.spec) as unknown as ServiceSpec).source;
  if (!oci || oci.digest) return;
  const { moved, failure } = await bundles.recheckTag(service, oci);
  if (moved) {
    log.info({ service: name, repo: oci.repo, tag: oci.tag }, "tag moved; minting for its new digest");
    options.enqueue(name);
  } else if (failure !== undefined) {
    log.warn(
      { service: name, message: failure },
      "tag poll could not resolve the tag; keeping the last answer",
    );
  }
}
