import { locate } from "../../shared/repository-url";
import { isKnown, isUnknown } from "../sentinel";
import { child, isSetString, objectRule, quote } from "./helpers";

/**
 * A `file://` URL reads the disk of the machine that fetches: git ignores any host it names, so
 * `file://server/x` would not mean what it says. What that machine may fetch (`--git-allow`) is its own
 * judgement, in the Accepted condition.
 */
export const gitFileUrl = objectRule(
  {
    id: "git-file-url",
    kinds: ["Service"],
    path: "spec.source.git.url",
    severity: "error",
    description:
      'A file:// spec.source.git.url names a path on the machine that fetches it, and no host: write "file:///srv/app.git" or "file://localhost/srv/app.git", or an http(s):// or git:// URL to reach another host.',
  },
  ({ value }) => {
    if (!isSetString(value.url)) return [];
    const location = locate(value.url);
    if (location?.kind !== "malformed") return [];
    return [{ at: ["url"], reason: "FieldValueInvalid", fix: `${quote(value.url)} ${location.problem}` }];
  },
);

export const buildOutputUnpinned = objectRule(
  {
    id: "build-output-unpinned",
    kinds: ["Service"],
    path: "spec.source.git.build.output.digest",
    severity: "error",
    description:
      "A build output names where builds are pushed, not an artifact (the revision a build mints pins its digest): remove spec.source.git.build.output.digest.",
  },
  ({ value }) => {
    const output = child(value, "output");
    if (output === undefined || output.digest === undefined || !isKnown(output.digest)) return [];
    return [
      {
        at: ["output", "digest"],
        reason: "FieldValueForbidden",
        fix: "cannot be set on a build output: each build pushes a new manifest, and its digest lands in status.lastBuild.digest and the minted revision's spec.bundle; remove digest (set tag to name what builds push)",
      },
    ];
  },
);

export const buildCommandPullRequests = objectRule(
  {
    id: "build-command-pull-requests",
    kinds: ["Service"],
    path: "spec.source.git.build.command",
    severity: "warning",
    description:
      "spec.source.git.build.command with triggers.onPullRequest runs each pull request's own commands on the build machine, whoever opened it: set onPullRequest to false, or build without a command.",
  },
  ({ value }) => {
    const command = child(value, "build")?.command;
    if (!Array.isArray(command) || command.length === 0) return [];
    if (child(value, "triggers")?.onPullRequest !== true) return [];
    return [
      {
        at: ["build", "command"],
        reason: "FieldValueInvalid",
        fix: "runs with triggers.onPullRequest, so each pull request's own version of the repository runs commands on the build machine, whoever opened it (the local server runs commands only when started with --build-commands); set onPullRequest to false, or remove command and commit the built output under rootDir",
      },
    ];
  },
);

export const previewTtl = objectRule(
  {
    id: "preview-ttl",
    kinds: ["Service"],
    path: "spec.source.git.previews.ttl",
    severity: "warning",
    description:
      'Preview Services without spec.source.git.previews.ttl are never collected while idle, only when their branch or pull request goes: set a ttl such as "72h".',
  },
  ({ value }) =>
    value.enabled === true && value.ttl === undefined
      ? [
          {
            at: ["ttl"],
            reason: "FieldValueRequired",
            fix: 'is not set, so preview Services (one per branch or pull request) are never deleted while idle, only when their branch is deleted or their pull request closed; set ttl, e.g. "72h"',
          },
        ]
      : [],
);

export const pullRequestPreviews = objectRule(
  {
    id: "pull-request-previews",
    kinds: ["Service"],
    path: "spec.source.git.triggers.onPullRequest",
    severity: "warning",
    description:
      "spec.source.git.triggers.onPullRequest has no effect unless previews.enabled is true (pull requests are built as preview Services): enable previews, or remove onPullRequest.",
  },
  ({ value }) => {
    const triggers = child(value, "triggers");
    if (triggers?.onPullRequest !== true) return [];
    // An unknown previews (or enabled) may still turn out true, so the rule waits until it is known.
    if (isUnknown(value.previews)) return [];
    const enabled = child(value, "previews")?.enabled;
    if (enabled === true || isUnknown(enabled)) return [];
    return [
      {
        at: ["triggers", "onPullRequest"],
        reason: "FieldValueInvalid",
        fix: "is true, but previews.enabled is not, so pull requests get no preview Service and this has no effect; set previews.enabled to true (with a ttl), or remove onPullRequest",
      },
    ];
  },
);
