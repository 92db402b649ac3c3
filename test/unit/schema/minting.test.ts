import { describe, expect, it } from "vitest";
import { applyDefaults } from "../../../sdk/schema";
import { currentBundle, mintDecision, previewRevisions, templateIdentity } from "../../../sdk/schema/minting";
import { UNKNOWN } from "../../../sdk/schema/sentinel";

const DIGEST_A = `sha256:${"a".repeat(64)}`;
const DIGEST_B = `sha256:${"b".repeat(64)}`;
const repo = "registry.example.dev/team/api";

type Spec = Record<string, unknown>;
const service = (spec: Spec, labels: Record<string, string> = { team: "payments" }) => ({
  metadata: { name: "api", labels },
  spec: applyDefaults("Service", spec) as Spec,
});
const template = (greeting = "hello", extra: Spec = {}) => ({
  spec: { runtime: { compatibilityDate: "2026-01-01" }, env: [{ name: "GREETING", value: greeting }] },
  ...extra,
});
const byDigest = (digest = DIGEST_A, greeting = "hello", more: Spec = {}) =>
  service({ source: { oci: { repo, digest } }, template: template(greeting), ...more });
const byTag = (tag = "v1", greeting = "hello") =>
  service({ source: { oci: { repo, tag } }, template: template(greeting) });
const git = (build: Spec = {}, greeting = "hello") =>
  service({
    source: {
      git: {
        url: "https://git.example.dev/team/api.git",
        triggers: { productionBranch: "main" },
        build: { output: { repo }, ...build },
      },
    },
    template: template(greeting),
  });

describe("mintDecision: does a Service's change mint a revision, and why", () => {
  it("mints nothing when nothing the controller names revisions by changes", () => {
    expect(mintDecision(byDigest(), byDigest())).toEqual({ outcome: "none", reasons: [] });
    // A label of the Service itself, a pin of the live revision, the history limit: a write, no new revision.
    expect(mintDecision(byDigest(), service({ ...byDigest().spec }, { team: "ops" })).outcome).toBe("none");
    expect(mintDecision(byDigest(), byDigest(DIGEST_A, "hello", { liveRevision: "api-0123456789" }))).toEqual(
      {
        outcome: "none",
        reasons: [],
      },
    );
    expect(mintDecision(byDigest(), byDigest(DIGEST_A, "hello", { revisionHistoryLimit: 3 })).outcome).toBe(
      "none",
    );
  });

  it("mints on a template change, naming the changed paths", () => {
    const decision = mintDecision(byDigest(), byDigest(DIGEST_A, "bonjour"));
    expect(decision.outcome).toBe("mints");
    expect(decision.reasons).toEqual([
      expect.objectContaining({ outcome: "mints", path: "spec.template.spec.env[0].value" }),
    ]);
    expect(decision.reasons[0]?.message).toContain("spec.template.spec.env[0].value changed");
  });

  it("counts template labels and annotations, and empty template metadata as none (the controller's identity)", () => {
    const labelled = service({
      source: { oci: { repo, digest: DIGEST_A } },
      template: template("hello", { metadata: { labels: { tier: "web" } } }),
    });
    const emptyMetadata = service({
      source: { oci: { repo, digest: DIGEST_A } },
      template: template("hello", { metadata: { labels: {} } }),
    });
    expect(mintDecision(byDigest(), labelled).reasons[0]?.path).toBe("spec.template.metadata.labels.tier");
    expect(mintDecision(byDigest(), emptyMetadata).outcome).toBe("none");
    expect(templateIdentity({ metadata: {}, spec: { a: 1 } })).toEqual({ spec: { a: 1 } });
  });

  it("mints on a new digest or repository", () => {
    const digest = mintDecision(byDigest(), byDigest(DIGEST_B));
    expect(digest).toMatchObject({ outcome: "mints", reasons: [{ path: "spec.source.oci.digest" }] });
    expect(digest.reasons[0]?.message).toContain("sha256:aaaaaaaaaaaa… → sha256:bbbbbbbbbbbb…");
    const moved = service({
      source: { oci: { repo: `${repo}-v2`, digest: DIGEST_A } },
      template: template(),
    });
    expect(mintDecision(byDigest(), moved)).toMatchObject({
      outcome: "mints",
      reasons: [{ path: "spec.source.oci.repo" }],
    });
  });

  it("lists every reason: a shared template change and a digest together", () => {
    const decision = mintDecision(byDigest(), byDigest(DIGEST_B, "bonjour"));
    expect(decision.reasons.map(({ path }) => path)).toEqual([
      "spec.template.spec.env[0].value",
      "spec.source.oci.digest",
    ]);
  });

  it("may mint on any write of a Service that follows a tag (resolved again at up), and says what it ran", () => {
    const relabelled = service({ ...byTag().spec }, { team: "ops" });
    expect(mintDecision(byTag(), relabelled, { digest: DIGEST_A })).toEqual({
      outcome: "may-mint",
      reasons: [
        {
          outcome: "may-mint",
          path: "spec.source.oci.tag",
          message: expect.stringContaining(
            "v1 is resolved again when the Service is written: mints if it moved from sha256:aaaa",
          ),
        },
      ],
    });
    expect(mintDecision(byTag("v1"), byTag("v2")).reasons[0]?.message).toContain("v1 → v2");
    expect(mintDecision(byTag(), byTag()).outcome).toBe("none");
    // A template change with a tag: it mints whatever the tag does.
    expect(mintDecision(byTag(), byTag("v1", "bonjour")).outcome).toBe("mints");
  });

  it("pinning a tag's digest mints only when the tag ran another one", () => {
    expect(mintDecision(byTag(), byDigest(DIGEST_A), { digest: DIGEST_A }).outcome).toBe("none");
    expect(mintDecision(byTag(), byDigest(DIGEST_A), { digest: DIGEST_B }).outcome).toBe("mints");
    expect(mintDecision(byTag(), byDigest(DIGEST_A)).outcome).toBe("may-mint");
    expect(mintDecision(byDigest(), byTag()).outcome).toBe("may-mint");
  });

  it("a git source: a change of what is built may mint, a new output repository mints, a label does not", () => {
    expect(mintDecision(git(), git({ rootDir: "web" }))).toMatchObject({
      outcome: "may-mint",
      reasons: [{ path: "spec.source.git.build.rootDir" }],
    });
    expect(mintDecision(git(), service({ ...git().spec }, { team: "ops" })).outcome).toBe("none");
    const output = git({ output: { repo: `${repo}-built` } });
    expect(mintDecision(git(), output).outcome).toBe("mints");
    expect(mintDecision(git(), git({}, "bonjour")).outcome).toBe("mints");
    expect(mintDecision(byDigest(), git()).reasons[0]?.message).toContain("oci → git");
  });

  it("a new Service mints its first revision", () => {
    expect(mintDecision(undefined, byDigest())).toMatchObject({ outcome: "mints", reasons: [{ path: "" }] });
  });

  it("values another resource computes (preview) may mint; unknown elsewhere does not", () => {
    const unknownGreeting = byDigest(DIGEST_A, UNKNOWN);
    expect(mintDecision(byDigest(), unknownGreeting).outcome).toBe("may-mint");
    expect(mintDecision(byDigest(), byDigest(UNKNOWN)).outcome).toBe("may-mint");
    expect(mintDecision(byDigest(), { ...byDigest(), spec: UNKNOWN as never }).outcome).toBe("may-mint");
    const unknownLabel = { ...byDigest(), metadata: { name: "api", labels: { team: UNKNOWN } } };
    expect(mintDecision(byDigest(), unknownLabel).outcome).toBe("none");
  });
});

describe("previewRevisions: the revision outputs a preview shows", () => {
  const current = { latestRevision: "api-0000000001", liveRevision: "api-0000000001" };

  it("keeps them when nothing mints, and makes the latest unknown when it does", () => {
    expect(previewRevisions(mintDecision(byDigest(), byDigest()), current, byDigest().spec)).toEqual(current);
    const mints = mintDecision(byDigest(), byDigest(DIGEST_B));
    expect(previewRevisions(mints, current, byDigest(DIGEST_B).spec)).toEqual({
      latestRevision: UNKNOWN,
      liveRevision: UNKNOWN,
    });
  });

  it("a pinned live revision stays known while the latest is minted; a new pin is the new live one", () => {
    const pinned = byDigest(DIGEST_B, "hello", { liveRevision: "api-0000000001" }).spec;
    const mints = mintDecision(byDigest(), byDigest(DIGEST_B));
    expect(previewRevisions(mints, current, pinned)).toEqual({
      latestRevision: UNKNOWN,
      liveRevision: "api-0000000001",
    });
    const pin = byDigest(DIGEST_A, "hello", { liveRevision: "api-0000000000" });
    expect(previewRevisions(mintDecision(byDigest(), pin), current, pin.spec)).toEqual({
      latestRevision: "api-0000000001",
      liveRevision: "api-0000000000",
    });
  });

  it("reads what the Service runs from its status", () => {
    expect(currentBundle({ resolvedBundle: { tag: "v1", digest: DIGEST_A, resolvedAt: "x" } })).toEqual({
      digest: DIGEST_A,
    });
    expect(currentBundle({ lastBuild: { phase: "Succeeded", branch: "main", digest: DIGEST_B } })).toEqual({
      digest: DIGEST_B,
    });
    expect(currentBundle(undefined)).toEqual({});
  });
});
