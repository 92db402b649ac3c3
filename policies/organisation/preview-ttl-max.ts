import { isUnknown, parseDuration } from "../../sdk/schema";
import { isRecord } from "../../sdk/shared/records";
import { valueAt } from "../resources";
import { duration, SettingError } from "../settings";
import { organisationPolicy } from "./organisation-policy";

interface Settings {
  maxTtl: string;
}

const NAME = "preview-ttl-max";
const FIELD = "spec.source.git.previews.ttl";

export const previewTtlMax = organisationPolicy<Settings>({
  name: NAME,
  description:
    "Preview Services that a Service spawns per branch or pull request are collected after at most maxTtl idle, so forgotten previews do not keep running (and costing, and exposing unreviewed code) for ever.",
  kinds: ["Service"],
  configSchema: {
    properties: {
      maxTtl: duration(
        "The longest spec.source.git.previews.ttl allowed, as a Go duration. A Service with previews enabled and no ttl (never collected while idle) breaks it too.",
        "168h",
      ),
    },
  },
  severity: "medium",
  fix: "Set spec.source.git.previews.ttl to maxTtl or less.",
  remediation:
    "none: a shorter ttl deletes idle previews sooner, which reviewers may still be using; the author picks the ttl",
  checkSettings: ({ maxTtl }) => {
    if (parseDuration(maxTtl) === undefined) {
      throw new SettingError(
        NAME,
        "maxTtl",
        `is ${JSON.stringify(maxTtl)}, longer than a Go duration can be: use hours, such as "168h"`,
      );
    }
  },
  check: (_kind, props, { maxTtl }) => {
    const previews = valueAt(props, ["spec", "source", "git", "previews"]);
    if (!isRecord(previews) || previews.enabled !== true) return [];
    const { ttl } = previews;
    if (ttl === undefined) {
      return [
        `${FIELD}: not set, so idle previews are never collected; set a ttl of at most ${JSON.stringify(maxTtl)}`,
      ];
    }
    if (typeof ttl !== "string" || isUnknown(ttl)) return [];
    const ttlMs = parseDuration(ttl);
    const maxMs = parseDuration(maxTtl) ?? Number.POSITIVE_INFINITY;
    // A malformed ttl is the duration-format rule's to report.
    if (ttlMs === undefined || ttlMs <= maxMs) return [];
    return [
      `${FIELD}: ${JSON.stringify(ttl)} is longer than the organisation's maximum ${JSON.stringify(maxTtl)}; set it to ${JSON.stringify(maxTtl)} or less`,
    ];
  },
});
