import { UNKNOWN } from "../../../../sdk/schema";
import { gitService, ociService, revision, withValue } from "../examples";
import { config, git, invalid, type RuleCase, rev, service, update, valid } from "./case";

/** The rules about changes: a stored spec and the one that replaces it. */
export const UPDATE_CASES: RuleCase[] = [
  update(
    invalid(
      "service-mode-immutable",
      "backend to filter",
      "Service",
      withValue(ociService, ["template", "spec"], gitService.template.spec),
      "spec.template.spec.filter",
    ),
    ociService,
  ),
  update(
    invalid(
      "service-mode-immutable",
      "defaulted backend mode to filter",
      "Service",
      gitService,
      "spec.template.spec.filter",
    ),
    git([...config, "filter"], undefined),
  ),
  update(
    invalid(
      "service-mode-immutable",
      "filter to backend",
      "Service",
      ociService,
      "spec.template.spec.backend",
    ),
    service(["template", "spec"], gitService.template.spec),
  ),
  update(
    valid(
      "service-mode-immutable",
      "a new backend port",
      "Service",
      service([...config, "backend", "port"], 9000),
    ),
    ociService,
  ),
  update(
    valid(
      "service-mode-immutable",
      "a filter changing phase",
      "Service",
      git([...config, "filter", "phase"], "request"),
    ),
    gitService,
  ),
  update(
    valid("service-mode-immutable", "an unknown filter", "Service", git([...config, "filter"], UNKNOWN)),
    ociService,
  ),
  update(
    invalid(
      "revision-spec-immutable",
      "a new runtime timeout",
      "ServiceRevision",
      rev(["runtime", "timeout"], "1m"),
      "spec",
    ),
    revision,
  ),
  update(valid("revision-spec-immutable", "the same spec", "ServiceRevision", revision), revision),
  update(
    valid(
      "revision-spec-immutable",
      "the default written out",
      "ServiceRevision",
      rev(["runtime", "timeout"], "30s"),
    ),
    rev(["runtime", "timeout"], undefined),
  ),
  update(
    valid("revision-spec-immutable", "an unknown env", "ServiceRevision", rev(["env"], UNKNOWN)),
    revision,
  ),
];
