import { readFileSync } from "node:fs";
import path from "node:path";
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { describe, expect, it } from "vitest";
import { ORGANISATION_POLICIES } from "../../policies/organisation";
import { compatibilityDateMaxAge } from "../../policies/organisation/compatibility-date-max-age";
import { POLICIES } from "../../policies/policies";
import { KIND_NAMES, UNKNOWN } from "../../sdk/schema";
import { exampleResource, specWith, VALID_SPECS } from "./fixtures";
import { runRemediation, runResourcePolicy } from "./harness";

function organisationPolicy(name: string): ResourceValidationPolicy {
  const found = ORGANISATION_POLICIES.find(({ policy }) => policy.name === name);
  if (found === undefined) throw new Error(`no organisation policy named ${name}`);
  return found.policy;
}

const GIT = {
  url: "https://git.corp.example/team/web.git",
  triggers: {},
  build: { output: { repo: "registry.corp.example/team/web" } },
};
const gitService = (git: Record<string, unknown>) =>
  exampleResource("Service", "web", specWith("Service", { source: { oci: null, git: { ...GIT, ...git } } }));

describe("organisation policies", () => {
  it("are in the pack, disabled until a policy config turns them on, each with a config schema", () => {
    for (const { policy } of ORGANISATION_POLICIES) {
      // The pack serves each wrapped with its exemptions (policies/exemptions.ts).
      expect(POLICIES.map(({ name }) => name)).toContain(policy.name);
      expect(policy.enforcementLevel, policy.name).toBe("disabled");
      expect(policy.configSchema, policy.name).toBeDefined();
    }
    expect(ORGANISATION_POLICIES.map(({ policy }) => policy.name)).toEqual([
      "allowed-sources",
      "required-labels",
      "compatibility-date-max-age",
      "preview-ttl-max",
      "proxy-telemetry-required",
    ]);
  });

  it("refuse a setting their schema does not define, naming it and the settings there are", async () => {
    const run = runResourcePolicy(
      organisationPolicy("compatibility-date-max-age"),
      exampleResource("Service", "web", VALID_SPECS.Service),
      { config: { maxAgeDay: 30 } },
    );
    await expect(run).rejects.toThrow(
      'policy config "compatibility-date-max-age": setting "maxAgeDay" is not a setting of this policy (its settings are maxAgeDays): fix its spelling',
    );
    // @pulumi/policy prints the error's stack: the one line, no trace into the pack's files.
    const error = await run.catch((caught: Error) => caught);
    expect((error as Error).stack).toBe(`SettingError: ${(error as Error).message}`);
  });
});

describe("allowed-sources", () => {
  const policy = organisationPolicy("allowed-sources");
  const settings = {
    ociRepositories: ["registry.corp.example/team/**"],
    gitRepositories: ["git.corp.example/**"],
  };
  const ociService = (repo: string) =>
    exampleResource("Service", "web", specWith("Service", { source: { oci: { repo } } }));

  it("restricts nothing without settings", async () => {
    expect(await runResourcePolicy(policy, ociService("elsewhere.example/x/y"))).toEqual([]);
  });

  it("passes sources that match a pattern: OCI repos as written, git URLs without scheme or .git", async () => {
    expect(
      await runResourcePolicy(policy, ociService("registry.corp.example/team/web"), { config: settings }),
    ).toEqual([]);
    expect(await runResourcePolicy(policy, gitService({}), { config: settings })).toEqual([]);
  });

  it("names the field, the repository and the patterns it matches none of", async () => {
    expect(
      await runResourcePolicy(policy, ociService("docker.io/someone/web"), { config: settings }),
    ).toEqual([
      'Service "web": spec.source.oci.repo: "docker.io/someone/web" matches none of allowed-sources.ociRepositories ("registry.corp.example/team/**"); use a repository the organisation allows, or ask the platform team to add one to the policy config',
    ]);
    const reports = await runResourcePolicy(
      policy,
      gitService({
        url: "https://github.com/someone/web",
        build: { output: { repo: "docker.io/someone/web" } },
      }),
      { config: settings },
    );
    expect(reports).toEqual([
      expect.stringContaining(
        'spec.source.git.url: "github.com/someone/web" matches none of allowed-sources.gitRepositories ("git.corp.example/**")',
      ),
      expect.stringContaining('spec.source.git.build.output.repo: "docker.io/someone/web" matches none of'),
    ]);
  });

  it("checks a ServiceRevision's bundle, and an empty list allows nothing", async () => {
    const revision = exampleResource("ServiceRevision", "rev", VALID_SPECS.ServiceRevision);
    expect(await runResourcePolicy(policy, revision, { config: { ociRepositories: [] } })).toEqual([
      expect.stringContaining(
        "spec.bundle.repo: allowed-sources.ociRepositories is empty, so no oci source is allowed",
      ),
    ]);
  });

  it("skips a repository that is unknown during preview", async () => {
    expect(await runResourcePolicy(policy, ociService(UNKNOWN), { config: settings })).toEqual([]);
  });
});

describe("required-labels", () => {
  const policy = organisationPolicy("required-labels");
  const config = {
    labels: { team: [], environment: ["staging", "production"] },
    defaults: { environment: "staging" },
  };
  const labelled = (labels?: Record<string, unknown>) =>
    exampleResource("Proxy", "edge", VALID_SPECS.Proxy, labels === undefined ? undefined : { labels });

  it("requires nothing without settings", async () => {
    expect(await runResourcePolicy(policy, labelled())).toEqual([]);
  });

  it("reports each missing label and each value that is not allowed, on every kind", async () => {
    for (const kind of KIND_NAMES) {
      const reports = await runResourcePolicy(policy, exampleResource(kind, "x", VALID_SPECS[kind]), {
        config,
      });
      expect(reports, kind).toHaveLength(2);
    }
    expect(await runResourcePolicy(policy, labelled({ environment: "dev" }), { config })).toEqual([
      'Proxy "edge": metadata.labels.team: missing; the organisation requires this label (any value): add it to metadata.labels',
      'Proxy "edge": metadata.labels.environment: "dev" is not allowed; use one of "staging", "production"',
    ]);
    expect(
      await runResourcePolicy(policy, labelled({ team: "web", environment: "production" }), { config }),
    ).toEqual([]);
  });

  it("remediates by filling in missing labels from the defaults, leaving values that are not allowed", async () => {
    const remediated = await runRemediation(policy, labelled({ team: "web" }), { config });
    expect(remediated?.metadata).toEqual({ labels: { team: "web", environment: "staging" } });
    expect(
      await runRemediation(policy, labelled({ team: "web", environment: "dev" }), { config }),
    ).toBeUndefined();
  });

  it("refuses a default its labels do not allow, or for a label they do not require", async () => {
    await expect(
      runResourcePolicy(policy, labelled(), { config: { ...config, defaults: { environment: "dev" } } }),
    ).rejects.toThrow('setting "defaults.environment" is "dev", which labels.environment does not allow');
    await expect(
      runResourcePolicy(policy, labelled(), { config: { ...config, defaults: { owner: "me" } } }),
    ).rejects.toThrow('setting "defaults.owner" names a label that labels does not require');
  });
});

describe("compatibility-date-max-age", () => {
  const policy = compatibilityDateMaxAge(() => new Date("2026-03-01T23:30:00Z")).policy;
  const dated = (compatibilityDate: string) =>
    exampleResource(
      "Service",
      "web",
      specWith("Service", { template: { spec: { runtime: { compatibilityDate } } } }),
    );

  it("allows dates up to maxAgeDays before the UTC day of the preview, and no older", async () => {
    const config = { maxAgeDays: 30 };
    expect(await runResourcePolicy(policy, dated("2026-01-30"), { config })).toEqual([]);
    expect(await runResourcePolicy(policy, dated("2026-01-29"), { config })).toEqual([
      'Service "web": spec.template.spec.runtime.compatibilityDate: "2026-01-29" is more than 30 days old (the oldest date allowed today is "2026-01-30"); move it to that date or later, after testing the service on the newer runtime behaviour',
    ]);
  });

  it("defaults to 365 days, and checks a ServiceRevision's runtime too", async () => {
    expect(await runResourcePolicy(policy, dated("2025-03-01"))).toEqual([]);
    const revision = exampleResource("ServiceRevision", "rev", VALID_SPECS.ServiceRevision);
    expect(await runResourcePolicy(policy, revision)).toEqual([
      expect.stringContaining('spec.runtime.compatibilityDate: "2025-01-01" is more than 365 days old'),
    ]);
  });

  it("reports a date it cannot read", async () => {
    expect(await runResourcePolicy(policy, dated("2026-02-30"))).toEqual([
      expect.stringContaining('"2026-02-30" is not a date of the form YYYY-MM-DD'),
    ]);
  });
});

describe("preview-ttl-max", () => {
  const policy = organisationPolicy("preview-ttl-max");

  it("reports previews without a ttl or with a longer one than maxTtl (default 168h)", async () => {
    expect(await runResourcePolicy(policy, gitService({ previews: { enabled: true } }))).toEqual([
      'Service "web": spec.source.git.previews.ttl: not set, so idle previews are never collected; set a ttl of at most "168h"',
    ]);
    expect(
      await runResourcePolicy(policy, gitService({ previews: { enabled: true, ttl: "72h" } }), {
        config: { maxTtl: "48h" },
      }),
    ).toEqual([
      'Service "web": spec.source.git.previews.ttl: "72h" is longer than the organisation\'s maximum "48h"; set it to "48h" or less',
    ]);
  });

  it("passes a ttl within maxTtl, and Services without previews", async () => {
    expect(
      await runResourcePolicy(policy, gitService({ previews: { enabled: true, ttl: "2h30m" } })),
    ).toEqual([]);
    expect(await runResourcePolicy(policy, gitService({ previews: { enabled: false } }))).toEqual([]);
    expect(await runResourcePolicy(policy, exampleResource("Service", "web", VALID_SPECS.Service))).toEqual(
      [],
    );
  });
});

describe("proxy-telemetry-required", () => {
  const policy = organisationPolicy("proxy-telemetry-required");
  const proxy = (patch: Record<string, unknown>) =>
    exampleResource("Proxy", "edge", specWith("Proxy", patch));
  const otelSink = { openTelemetrySinks: [{ endpoint: "https://otel.corp.example:4318" }] };

  it("reports a cloud proxy without a third-party sink, and a proxy you run without a collector", async () => {
    expect(await runResourcePolicy(policy, proxy({}))).toEqual([
      expect.stringContaining(
        'Proxy "edge": spec.telemetry.thirdPartySinks: a cloud proxy with no telemetry sink',
      ),
    ]);
    expect(
      await runResourcePolicy(
        policy,
        proxy({ provider: "on-premises", telemetry: { thirdPartySinks: otelSink } }),
      ),
    ).toEqual([
      expect.stringContaining('spec.telemetry.otelCollectorConfig: a proxy on provider "on-premises"'),
    ]);
  });

  it("passes a proxy whose telemetry reaches a sink", async () => {
    expect(await runResourcePolicy(policy, proxy({ telemetry: { thirdPartySinks: otelSink } }))).toEqual([]);
    const collector = { otelCollectorConfig: { group: "core.example.dev", name: "otel" } };
    expect(await runResourcePolicy(policy, proxy({ provider: "on-premises", telemetry: collector }))).toEqual(
      [],
    );
  });

  it("takes no settings", async () => {
    await expect(runResourcePolicy(policy, proxy({}), { config: { sinks: 1 } })).rejects.toThrow(
      'setting "sinks" is not a setting of this policy (it takes none)',
    );
  });
});

describe("the pull-request example's policy config", () => {
  const file = path.resolve(__dirname, "../../examples/pull-request-workflow/policy-config.json");
  const config: Record<string, unknown> = JSON.parse(readFileSync(file, "utf8"));

  it("names policies of the pack, and gives the organisation policies settings they accept", async () => {
    expect(Object.keys(config).filter((name) => !POLICIES.some((policy) => policy.name === name))).toEqual(
      [],
    );
    for (const { policy } of ORGANISATION_POLICIES) {
      const entry = config[policy.name];
      if (typeof entry !== "object" || entry === null) continue;
      const { enforcementLevel: _, ...settings } = entry as Record<string, unknown>;
      const resource = exampleResource(
        policy.name === "proxy-telemetry-required" ? "Proxy" : "Service",
        "x",
        {},
      );
      await expect(
        runResourcePolicy(policy, resource, { config: settings }),
        policy.name,
      ).resolves.toBeDefined();
    }
  });
});
