// `exampledev-policy-report audit`: judges every live Proxy, Service and ServiceRevision of an API with the
// pack's own policies (the same wrapped POLICIES `pulumi preview --policy-pack` serves, exemptions included),
// configured by the same `--policy-pack-config` file. It only lists (GET, page by page): it never writes.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { EnforcementLevel, ResourceValidationArgs, ResourceValidationPolicy } from "@pulumi/policy";
import { type ConfigSource, resolveSettings } from "../../provider/settings";
import { createClient } from "../../sdk/client";
import { TYPE_TOKENS } from "../../sdk/resources/type-tokens";
import { KIND_NAMES, type KindName } from "../../sdk/schema";
import { isRecord } from "../../sdk/shared/records";
import { describeException, judgeException } from "../exceptions";
import { type Exemption, isExemptedReport, readExemptions, today } from "../exemptions";
import { type PackConfig, PackConfigError, type PolicyException, readPackConfig } from "../pack-config";
import { POLICIES } from "../policies";
import { SettingError } from "../settings";
import { objectKey, readStackUrns } from "./stack-state";

export const AUDIT_USAGE =
  "usage: exampledev-policy-report audit [--base-url <url> (token from EXAMPLEDEV_TOKEN) | --kubeconfig <file> [--context <name>]] [--policy-pack-config <file>] [--stack-state <pulumi stack export> ...] [--format text|json|sarif] [--page-size <n>]";

/** A usage or configuration error: exit status 2. */
export class AuditUsageError extends Error {}

export interface AuditViolation {
  policy: string;
  level: "mandatory" | "advisory";
  kind: KindName;
  name: string;
  message: string;
  path?: string;
}

/** An exempted violation: by the pack's exemption (owner and expiry always), or by a Pulumi exception (its ID). */
export interface AuditExemption extends Omit<Exemption, "resource" | "owner" | "expires"> {
  policy: string;
  kind: KindName;
  name: string;
  owner?: string;
  expires?: string;
  exception?: string;
}

export interface AuditResult {
  objects: number;
  violations: AuditViolation[];
  exemptions: AuditExemption[];
}

/** A live object as listed: its metadata and spec are what the policies judge. */
export interface LiveObject {
  metadata?: { name?: string; labels?: unknown; annotations?: unknown };
  spec?: unknown;
}

type PolicyConfig = Record<string, unknown>;

const POLICY_NAMES: ReadonlySet<string> = new Set(POLICIES.map(({ name }) => name));

function levelOf(policy: ResourceValidationPolicy, config: PolicyConfig): EnforcementLevel {
  const own = config[policy.name];
  const level = typeof own === "string" ? own : isRecord(own) ? own.enforcementLevel : undefined;
  const all = config.all;
  const pack = typeof all === "string" ? all : isRecord(all) ? all.enforcementLevel : undefined;
  return ((level ?? policy.enforcementLevel ?? pack ?? "advisory") as EnforcementLevel) || "advisory";
}

function settingsOf(policy: ResourceValidationPolicy, config: PolicyConfig): Record<string, unknown> {
  const own = config[policy.name];
  if (!isRecord(own)) return {};
  const { enforcementLevel: _, ...settings } = own;
  return settings;
}

/** `Kind "name": path: …` → the path, when the message after the resource starts with one. */
function pathOf(message: string): string | undefined {
  const match = /^\w+ "[^"]*": ((?:spec|metadata)[\w.[\]"-]*): /.exec(message);
  return match?.[1];
}

/** The resource policies the audit runs (stack policies judge a stack, and a live API is not one). */
function resourcePolicies(config: PolicyConfig) {
  return POLICIES.filter((policy): policy is ResourceValidationPolicy => "validateResource" in policy)
    .map((policy) => ({ policy, level: levelOf(policy, config), settings: settingsOf(policy, config) }))
    .filter(({ level }) => level !== "disabled");
}

/** Judges live objects as they come, keeping only the findings: memory is bounded by one page. */
export class Auditor {
  readonly result: AuditResult = { objects: 0, violations: [], exemptions: [] };
  private readonly policies: ReturnType<typeof resourcePolicies>;
  private readonly exceptions: readonly PolicyException[];

  /** `urns`: `Kind/metadata.name` -> URN, for the objects of stacks (stack-state.ts), which exceptions name. */
  constructor(
    config: PackConfig,
    private readonly urns: ReadonlyMap<string, string> = new Map(),
    private readonly on: string = today(),
  ) {
    this.policies = resourcePolicies(config.policies);
    this.exceptions = config.exceptions;
    // A wrong exemption is a configuration error even when no object would reach it.
    for (const { policy, settings } of this.policies) {
      try {
        readExemptions(policy.name, settings, this.on);
      } catch (error) {
        if (error instanceof SettingError) throw new AuditUsageError(error.message);
        throw error;
      }
    }
  }

  async judge(kind: KindName, object: LiveObject): Promise<void> {
    this.result.objects += 1;
    const name = object.metadata?.name ?? "";
    const props = { metadata: object.metadata ?? {}, spec: object.spec };
    for (const { policy, level, settings } of this.policies) {
      const args = {
        type: TYPE_TOKENS[kind],
        name,
        urn: "",
        props,
        getConfig: () => settings,
        notApplicable: () => {
          throw new NotApplicable();
        },
      } as unknown as ResourceValidationArgs;
      const report = (message: unknown) => {
        if (isExemptedReport(message)) {
          const { resource: _, ...exemption } = message.exemption;
          this.result.exemptions.push({ policy: policy.name, kind, name, ...exemption });
          return;
        }
        const judgement = judgeException(
          this.exceptions,
          policy.name,
          this.urns.get(objectKey(kind, name)),
          this.on,
        );
        if (judgement.exempted) {
          const { id, reason, owner, expires } = judgement.exception;
          this.result.exemptions.push({
            policy: policy.name,
            kind,
            name,
            reason,
            owner,
            expires,
            exception: id,
          });
        } else {
          const expired = judgement.expired
            ? ` (its ${describeException(judgement.expired)} expired on ${judgement.expired.expires})`
            : "";
          const text = `${String(message)}${expired}`;
          const path = pathOf(text);
          this.result.violations.push({
            policy: policy.name,
            level: level === "advisory" ? "advisory" : "mandatory",
            kind,
            name,
            message: text,
            ...(path !== undefined && { path }),
          });
        }
      };
      try {
        await (policy.validateResource as (a: ResourceValidationArgs, r: typeof report) => unknown)(
          args,
          report,
        );
      } catch (error) {
        if (error instanceof NotApplicable) continue;
        if (error instanceof SettingError) throw new AuditUsageError(error.message);
        throw error;
      }
    }
  }
}

class NotApplicable extends Error {}

/** Where the audit reads from: the flags, resolved like the provider's settings (EXAMPLEDEV_* variables too). */
function configSource(values: { "base-url"?: string; kubeconfig?: string; context?: string }): ConfigSource {
  const keys: Record<string, string | undefined> = {
    "exampledev:baseUrl": values["base-url"],
    "exampledev:kubeconfig": values.kubeconfig,
    "exampledev:context": values.context,
  };
  return { get: (key) => keys[key] };
}

const KIND_LISTS = {
  Proxy: "proxies",
  Service: "services",
  ServiceRevision: "serviceRevisions",
} as const satisfies Record<KindName, string>;

/** `by policy exception "EXC-1" until 2026-12-31 (owner team-edge): reason`, with the parts an exemption has. */
function exemptionTerms({ exception, expires, owner, reason }: AuditExemption): string {
  return [
    exception !== undefined && `by policy exception "${exception}"`,
    expires !== undefined && `until ${expires}`,
    owner !== undefined && `(owner ${owner})`,
  ]
    .filter(Boolean)
    .join(" ")
    .concat(`: ${reason}`);
}

const sarifLevel = (level: string) => (level === "mandatory" ? "error" : "warning");

export function toSarif(result: AuditResult): object {
  const descriptions = new Map(POLICIES.map(({ name, description }) => [name, description ?? name]));
  const used = [...new Set([...result.violations, ...result.exemptions].map(({ policy }) => policy))].sort();
  const location = (kind: string, name: string) => [
    { logicalLocations: [{ name, fullyQualifiedName: `${kind}/${name}`, kind: "resource" }] },
  ];
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "exampledev-policy-report",
            informationUri: "https://www.npmjs.com/package/@exampledev/pulumi",
            rules: used.map((id) => ({ id, shortDescription: { text: descriptions.get(id) ?? id } })),
          },
        },
        results: [
          ...result.violations.map((violation) => ({
            ruleId: violation.policy,
            level: sarifLevel(violation.level),
            message: { text: violation.message },
            locations: location(violation.kind, violation.name),
          })),
          ...result.exemptions.map((exemption) => ({
            ruleId: exemption.policy,
            level: "note",
            message: {
              text: `${exemption.kind} "${exemption.name}" is exempted ${exemptionTerms(exemption)}`,
            },
            locations: location(exemption.kind, exemption.name),
            suppressions: [
              {
                kind: "external",
                status: "accepted",
                justification: exemption.reason,
                ...(exemption.exception !== undefined && {
                  properties: { policyException: exemption.exception },
                }),
              },
            ],
          })),
        ],
      },
    ],
  };
}

export function toText(result: AuditResult): string {
  const lines: string[] = [];
  const mandatory = result.violations.filter(({ level }) => level === "mandatory").length;
  const byPolicy = new Map<string, AuditViolation[]>();
  for (const violation of result.violations)
    byPolicy.set(violation.policy, [...(byPolicy.get(violation.policy) ?? []), violation]);
  for (const [policy, violations] of [...byPolicy].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`[${violations[0]?.level}] ${policy} (${violations.length})`);
    for (const violation of violations) lines.push(`  ${violation.message}`);
  }
  if (result.exemptions.length > 0) {
    lines.push(`exemptions (${result.exemptions.length})`);
    for (const e of result.exemptions)
      lines.push(`  ${e.policy}: ${e.kind} "${e.name}" ${exemptionTerms(e)}`);
  }
  lines.push(
    `${result.objects} objects, ${mandatory} mandatory and ${result.violations.length - mandatory} advisory violations, ${result.exemptions.length} exempted`,
  );
  return `${lines.join("\n")}\n`;
}

/** Runs the audit from command-line arguments (after `audit`); the exit status. */
export async function audit(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values: {
    "base-url"?: string;
    kubeconfig?: string;
    context?: string;
    "policy-pack-config"?: string;
    "stack-state"?: string[];
    format?: string;
    "page-size"?: string;
  };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        "base-url": { type: "string" },
        kubeconfig: { type: "string" },
        context: { type: "string" },
        "policy-pack-config": { type: "string" },
        "stack-state": { type: "string", multiple: true },
        format: { type: "string", default: "text" },
        "page-size": { type: "string", default: "500" },
      },
    }));
  } catch (error) {
    throw new AuditUsageError(`${(error as Error).message}\n${AUDIT_USAGE}`);
  }
  const format = values.format ?? "text";
  if (!["text", "json", "sarif"].includes(format))
    throw new AuditUsageError(`--format takes text, json or sarif, not ${JSON.stringify(format)}`);
  const pageSize = Number(values["page-size"]);
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new AuditUsageError("--page-size takes a whole number, 1 or more");
  const file = values["policy-pack-config"];
  let config: PackConfig = { policies: {}, exceptions: [] };
  let urns: Map<string, string>;
  try {
    if (file !== undefined) config = readPackConfig(readFileSync(file, "utf8"), POLICY_NAMES);
    urns = readStackUrns(values["stack-state"] ?? []);
  } catch (error) {
    if (error instanceof PackConfigError) throw new AuditUsageError(error.message);
    throw new AuditUsageError((error as Error).message);
  }
  let settings: ReturnType<typeof resolveSettings>;
  try {
    settings = resolveSettings(configSource(values), env);
  } catch (error) {
    throw new AuditUsageError((error as Error).message);
  }
  const auditor = new Auditor(config, urns);
  const client = createClient(settings);
  try {
    for (const kind of KIND_NAMES) {
      const kinds = client[KIND_LISTS[kind]];
      let token: string | undefined;
      do {
        const page = await kinds.list({ limit: pageSize, ...(token !== undefined && { continue: token }) });
        for (const object of page.items) await auditor.judge(kind, object as LiveObject);
        token = page.metadata.continue || undefined;
      } while (token);
    }
  } finally {
    await client.close();
  }
  const { result } = auditor;
  if (format === "json") process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else if (format === "sarif") process.stdout.write(`${JSON.stringify(toSarif(result), null, 2)}\n`);
  else process.stdout.write(toText(result));
  return result.violations.some(({ level }) => level === "mandatory") ? 1 : 0;
}
