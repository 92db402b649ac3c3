// The generated parts of the documentation: tables rendered from the data they document (the schema's RULES,
// the policy pack's policies, the provider's settings), placed between marker comments in the Markdown files.
// scripts/lib/generated.ts lists them with every other generated file for `npm run generate`.
import { readFileSync } from "node:fs";
import path from "node:path";
import { ORGANISATION_POLICIES } from "../../policies/organisation";
import { POLICIES } from "../../policies/policies";
import { describeResource } from "../../policies/resources";
import { RULE_REMEDIATIONS } from "../../policies/rule-remediations";
import { STACK_POLICIES } from "../../policies/stack-policies";
import { SETTINGS, type SettingInfo } from "../../sdk/client/settings";
import { TYPE_TOKENS } from "../../sdk/resources";
import { applyDefaults, RULES, type RuleInfo, validateSpec } from "../../sdk/schema";
import { schemaFields } from "./schema-fields";

/** The repository root, from the sources (scripts/lib) or the build (dist/scripts/lib). */
export const REPO = path.resolve(__dirname, "../..").replace(/[/\\]dist$/, "");

/** A generated part of a file: its marker name, where its data comes from, and its Markdown. */
export interface Section {
  name: string;
  source: string;
  render(): string;
}

/** The files with generated parts (paths from the repository root) and their sections. */
export const DOCS: Readonly<Record<string, readonly Section[]>> = {
  "docs/configuration.md": [
    { name: "configuration", source: "SETTINGS in sdk/client/settings.ts", render: configurationTable },
  ],
  "docs/policy-pack.md": [
    { name: "rules", source: "RULES in sdk/schema/rules", render: ruleTable },
    {
      name: "organisation-policies",
      source: "ORGANISATION_POLICIES in policies/organisation",
      render: organisationPolicyTable,
    },
    {
      name: "remediations",
      source: "RULE_REMEDIATIONS in policies/rule-remediations.ts and ORGANISATION_POLICIES",
      render: remediationTable,
    },
  ],
  "sdk/schema/README.md": [
    { name: "defaults", source: "the schema's field defaults and applyDefaults", render: defaultsTable },
  ],
  "policies/README.md": [
    { name: "policy-example", source: "the drain-minimum rule and policy", render: policyExample },
    { name: "policies", source: "the pack's policies and RULES", render: policyTable },
  ],
};

// ---------------------------------------------------------------------------------------------------------
// Markdown

/**
 * Plain text of the data (descriptions, messages) as Markdown: a quoted literal ("30s") and a dotted field
 * path (spec.shutdown.drainTimeout) become code; `<`, `>` and `|` elsewhere are escaped for tables.
 */
export function markdown(text: string): string {
  return text
    .split(/("[^"\s][^"]*")/)
    .map((part, index) =>
      index % 2 === 1
        ? code(part.slice(1, -1))
        : part
            .replace(/[<>|]/g, (char) => ({ "<": "&lt;", ">": "&gt;", "|": "\\|" })[char] ?? char)
            .replace(/(?<![\w./:-])[a-z][A-Za-z0-9]*(?:\.[a-z][A-Za-z0-9]*)+(?![\w(])/g, (field) =>
              code(field),
            ),
    )
    .join("");
}

export function code(text: string): string {
  return `\`${text.replaceAll("|", "\\|")}\``;
}

/** A table with its columns padded to one width, as the rest of the Markdown in this repository. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, column) =>
    Math.max(3, cell.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}

// ---------------------------------------------------------------------------------------------------------
// docs/configuration.md

function settingDefault(setting: SettingInfo): string {
  if (setting.default === undefined) return "";
  const off = setting.defaultOffWith === undefined ? "" : ` (\`false\` with ${setting.defaultOffWith})`;
  return code(String(setting.default)) + off;
}

function configurationTable(): string {
  const rows = Object.values(SETTINGS).map((setting: SettingInfo) => [
    code(setting.config) + (setting.secret ? " (secret: `pulumi config set --secret`)" : ""),
    code(setting.env) + (setting.precedence === "environment" ? " (wins over the config)" : " (fallback)"),
    settingDefault(setting),
    markdown(setting.description),
  ]);
  return table(["stack config", "environment variable", "default", "meaning"], rows);
}

// ---------------------------------------------------------------------------------------------------------
// docs/policy-pack.md: rules

const ON_UPDATE = "**On update:**";

function ruleTable(): string {
  const rows = RULES.map((rule: RuleInfo) => [
    code(rule.id),
    rule.kinds.join(", "),
    rule.path
      .split(" | ")
      .map((alternative) => code(alternative))
      .join("<br>"),
    rule.severity,
    (rule.change ? `${ON_UPDATE} ` : "") + markdown(rule.description),
  ]);
  return [
    table(["id", "kinds", "path", "severity", "description"], rows),
    "",
    `${ON_UPDATE} a rule about changing an existing object (\`validateUpdate\`, \`change: true\`), judged against the`,
    "stored spec: the server refuses such an update and the provider's diff replaces the object instead. The",
    "policy pack, which sees only the new inputs, does not check these.",
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------------------
// docs/policy-pack.md: organisation policies and remediations

/** One setting of a policy's config schema: name, JSON type, default, what it means. */
function settingText(name: string, schema: unknown): string {
  const { type, default: fallback, description } = (schema ?? {}) as Record<string, unknown>;
  const facts = [
    String(type),
    ...(fallback === undefined ? [] : [`default ${code(JSON.stringify(fallback))}`]),
  ];
  return `${code(name)} (${facts.join(", ")}): ${markdown(String(description ?? ""))}`;
}

function organisationPolicyTable(): string {
  const rows = ORGANISATION_POLICIES.map(({ policy, kinds }) => {
    const settings = Object.entries(policy.configSchema.properties).map(([name, schema]) =>
      settingText(name, schema),
    );
    return [
      code(policy.name),
      kinds.join(", "),
      settings.join("<br>") || "none",
      markdown(policy.description),
    ];
  });
  return table(["policy", "kinds", "settings", "what it protects"], rows);
}

function remediationTable(): string {
  const rules = Object.entries(RULE_REMEDIATIONS).map(([id, remedy]) => [
    code(id),
    markdown(remedy.description),
  ]);
  const organisation = ORGANISATION_POLICIES.map(({ policy, remediation }) => [
    code(policy.name),
    markdown(remediation),
  ]);
  return table(["policy", "what `remediate` does"], [...rules, ...organisation]);
}

// ---------------------------------------------------------------------------------------------------------
// policies/README.md

const NOT_IN_PACK = "not in the pack";

function policyTable(): string {
  const rank = (level: string | undefined) => ["mandatory", "advisory", "disabled"].indexOf(level ?? "");
  // By name: the pack serves each policy wrapped with its exemptions (policies/exemptions.ts).
  const stackPolicies = new Set<string>(STACK_POLICIES.map(({ name }) => name));
  const rows = [...POLICIES]
    .sort((a, b) => rank(a.enforcementLevel) - rank(b.enforcementLevel))
    .map((policy) => [
      code(policy.name),
      policy.enforcementLevel ?? "advisory",
      (stackPolicies.has(policy.name) ? "**Stack policy:** " : "") + markdown(policy.description),
    ]);
  const changes = RULES.filter((rule) => rule.change).map((rule) => [
    code(rule.id),
    NOT_IN_PACK,
    `${ON_UPDATE} ${markdown(rule.description)} The server refuses such an update; the provider's diff replaces the object instead.`,
  ]);
  return table(["policy", "default", "description"], [...rows, ...changes]);
}

/** What `pulumi preview` prints for the drain-minimum example of the pack's README. */
function policyExample(): string {
  const ruleId = "drain-minimum";
  const policy = POLICIES.find((candidate) => candidate.name === ruleId);
  const [violation] = validateSpec("Proxy", { shutdown: { drainTimeout: "60s", minimumDrainTime: "10s" } });
  if (policy === undefined || violation?.rule !== ruleId) throw new Error(`the ${ruleId} example broke`);
  const { version } = JSON.parse(readFileSync(path.join(REPO, "policies/package.json"), "utf8"));
  const packName = /new PolicyPack\("([^"]+)"/.exec(
    readFileSync(path.join(REPO, "policies/index.ts"), "utf8"),
  );
  return [
    "```",
    "Policies:",
    `    ❌ ${packName?.[1]}@v${version} (local: node_modules/@exampledev/pulumi/policies)`,
    `        - [${policy.enforcementLevel}] [severity: ${policy.severity}]  ${ruleId}  (${TYPE_TOKENS.Proxy}: edge)`,
    `          ${policy.description}`,
    `          ${describeResource("Proxy", "edge")}: ${violation.message}`,
    `          How to fix: ${policy.remediationSteps}`,
    `          Reference: ${policy.url}`,
    "```",
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------------------
// sdk/schema/README.md

/** Every field default the schema declares, by API type name and field, in the order the specs reach them. */
function fieldDefaults(): { typeName: string; field: string; value: unknown }[] {
  const found = new Map<string, { typeName: string; field: string; value: unknown }>();
  for (const { typeName, field, hasDefault, defaultValue } of schemaFields()) {
    const key = `${typeName}.${field}`;
    if (hasDefault && !found.has(key)) found.set(key, { typeName, field, value: defaultValue });
  }
  return [...found.values()];
}

/** A default that depends on other fields (a type's `fill`): when it applies, and the value it fills in. */
export interface ConditionalDefault {
  typeName: string;
  field: string;
  /** The condition, in Markdown: "neither `backend` nor `filter`". */
  when: string;
  value: unknown;
}

/** The schema's conditional defaults, shown by applying them to a small spec. */
export function conditionalDefaults(): ConditionalDefault[] {
  const service = applyDefaults("Service", {
    source: { oci: { repo: "registry.example.dev/team/app" } },
    template: { spec: {} },
  }) as { source: { oci: { tag?: unknown } }; template: { spec: { backend?: unknown } } };
  return [
    {
      typeName: "ServiceConfigSpec",
      field: "backend",
      when: "neither `backend` nor `filter`",
      value: service.template.spec.backend,
    },
    {
      typeName: "BundleRef",
      field: "tag",
      when: "neither `tag` nor `digest`",
      value: service.source.oci.tag,
    },
  ];
}

function defaultsTable(): string {
  const rows = fieldDefaults().map(({ typeName, field, value }) => [
    `${typeName} ${code(field)}`,
    code(typeof value === "string" ? value : JSON.stringify(value)),
  ]);
  const conditional = conditionalDefaults().map(({ typeName, field, when, value }) => [
    `${typeName} with ${when}`,
    code(`${field}: ${JSON.stringify(value)}`),
  ]);
  return table(["field", "default"], [...rows, ...conditional]);
}

// ---------------------------------------------------------------------------------------------------------
// Markers

function startMarker(section: Section): string {
  return `<!-- generated:${section.name} by npm run generate from ${section.source}; edit that, not this -->`;
}

function endMarker(section: Section): string {
  return `<!-- /generated:${section.name} -->`;
}

/** `text` with each section's part (markers included) replaced by a fresh rendering. */
export function regenerate(file: string, text: string, sections: readonly Section[]): string {
  let result = text;
  for (const section of sections) {
    const start = result.indexOf(`<!-- generated:${section.name} `);
    const end = result.indexOf(endMarker(section), start);
    if (start === -1 || end === -1) {
      throw new Error(
        `${file}: no generated part "${section.name}": put the lines ${startMarker(section)} and ${endMarker(section)} where it belongs`,
      );
    }
    const part = [startMarker(section), section.render(), endMarker(section)].join("\n");
    result = result.slice(0, start) + part + result.slice(end + endMarker(section).length);
  }
  return result;
}
