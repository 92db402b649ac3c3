import { describe, expect, it } from "vitest";
import { mintingServices, revisionsSummary } from "../../policies/report/revisions";
import { NATIVE_TYPE_TOKENS, TYPE_TOKENS } from "../../sdk/resources/type-tokens";

const digest = (c: string) => `sha256:${c.repeat(64)}`;
const spec = (greeting: string, d = digest("a"), tag?: string) => ({
  source: { oci: { repo: "registry.example.dev/team/api", ...(tag ? { tag } : { digest: d }) } },
  template: { spec: { runtime: { compatibilityDate: "2026-01-01" }, env: [{ name: "G", value: greeting }] } },
});
const inputs = (name: string, s: unknown, labels = { team: "a" }) => ({
  metadata: { name, labels },
  spec: s,
});

function step(op: string, name: string, before: unknown, after: unknown, type: string = TYPE_TOKENS.Service) {
  const urn = `urn:pulumi:dev::app::${type}::${name}`;
  return {
    op,
    urn,
    ...(before !== undefined && {
      oldState: { type, inputs: before, outputs: { status: { latestRevision: `${name}-0000000001` } } },
    }),
    newState: { type, inputs: after },
  };
}

describe("the report's Services that mint a new revision", () => {
  const preview = JSON.stringify({
    steps: [
      step("update", "api", inputs("api", spec("hello")), inputs("api", spec("bonjour"))),
      step(
        "update",
        "worker",
        inputs("worker", spec("hello")),
        inputs("worker", spec("bonjour")),
        NATIVE_TYPE_TOKENS.Service,
      ),
      step(
        "update",
        "relabelled",
        inputs("relabelled", spec("x")),
        inputs("relabelled", spec("x"), { team: "b" }),
      ),
      step(
        "update",
        "tagged",
        inputs("tagged", spec("x", "", "v1")),
        inputs("tagged", spec("x", "", "v1"), { team: "b" }),
      ),
      step("update", "bumped", inputs("bumped", spec("x")), inputs("bumped", spec("x", digest("b")))),
      step("same", "untouched", inputs("untouched", spec("x")), inputs("untouched", spec("x"))),
      step("create", "fresh", undefined, inputs("fresh", spec("x"))),
      step(
        "update",
        "edge",
        { metadata: { name: "edge" }, spec: {} },
        { metadata: { name: "edge" }, spec: { a: 1 } },
        TYPE_TOKENS.Proxy,
      ),
    ],
  });

  it("lists exactly the Services whose change mints or may mint, with why and what they run now", () => {
    const minting = mintingServices(preview);
    expect(minting.map(({ urn, decision }) => [urn.split("::").at(-1), decision.outcome])).toEqual([
      ["api", "mints"],
      ["worker", "mints"],
      ["tagged", "may-mint"],
      ["bumped", "mints"],
      ["fresh", "mints"],
    ]);
    expect(minting[0]).toMatchObject({ name: "api", latestRevision: "api-0000000001" });
    const summary = revisionsSummary(minting);
    expect(summary).toContain("4 mint a new revision at `pulumi up`, 1 may");
    expect(summary).toContain(
      "| api | `api` | `api-0000000001` | mints | spec.template.spec.env[0].value changed: a new template mints a revision |",
    );
    expect(summary).toContain("spec.source.oci.tag: v1 is resolved again when the Service is written");
    expect(summary).not.toContain("relabelled");
    expect(revisionsSummary([])).toContain("No change mints a revision.");
  });
});
