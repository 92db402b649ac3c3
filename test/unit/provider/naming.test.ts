import { describe, expect, it } from "vitest";
import { chooseName, generatedName, NAME_CANDIDATES, nameBase } from "../../../provider/naming";
import type { ObjectInputs } from "../../../provider/state";
import { nameProblem, UNKNOWN } from "../../../sdk/schema";

const URN = "urn:pulumi:dev::shop::pulumi-nodejs:dynamic/exampledev:Proxy::edge";
const unnamed = (logicalName = "edge", metadata: Record<string, unknown> = {}) =>
  ({ metadata, spec: {}, logicalName }) as ObjectInputs;

describe("generatedName", () => {
  it("is the logical name made DNS-1123 plus 5 hex, the same for the same seed and attempt", () => {
    const name = generatedName("My_API", URN);
    expect(name).toMatch(/^my-api-[0-9a-f]{5}$/);
    expect(generatedName("My_API", URN)).toBe(name);
    expect(generatedName("My_API", URN, 0)).toBe(name);
  });

  it("differs between attempts, stacks, projects and parents", () => {
    const names = new Set([
      generatedName("edge", URN, 0),
      generatedName("edge", URN, 1),
      generatedName("edge", URN, 2),
      generatedName("edge", URN.replace(":dev::", ":prod::")),
      generatedName("edge", URN.replace("::shop::", "::tools::")),
      generatedName("edge", URN.replace("::pulumi-nodejs", "::my:Component$pulumi-nodejs")),
    ]);
    expect(names.size).toBe(6);
  });

  it.each([["Edge Proxy #1"], ["web..api"], ["team.-api"], ["___"], ["Ünïcödé"], ["x".repeat(300)]])(
    "gives %s a name the API accepts, within 63 characters",
    (logicalName) => {
      const name = generatedName(logicalName, URN, 3);
      expect(nameProblem(name)).toBeUndefined();
      expect(name.length).toBeLessThanOrEqual(63);
    },
  );

  it("names a logical name without letters or digits 'object'", () => {
    expect(nameBase("___")).toBe("object");
  });
});

describe("chooseName", () => {
  it("keeps the program's name, and a name not known yet", async () => {
    expect(await chooseName({}, unnamed("edge", { name: "chosen" }))).toEqual({
      metadata: { name: "chosen" },
      autoNamed: false,
    });
    expect(await chooseName({}, unnamed("edge", { name: UNKNOWN }))).toMatchObject({ autoNamed: false });
  });

  it("derives the name from the seed: two checks agree, offline and online", async () => {
    const offline = await chooseName({}, unnamed(), { seed: URN });
    expect(offline).toEqual({ metadata: { name: generatedName("edge", URN) }, autoNamed: true });
    expect(await chooseName({}, unnamed(), { seed: URN })).toEqual(offline);
    expect(await chooseName({}, unnamed(), { seed: URN, taken: async () => false })).toEqual(offline);
  });

  it("falls back to the logical name as the seed", async () => {
    expect((await chooseName({}, unnamed())).metadata.name).toBe(generatedName("edge", "edge"));
  });

  it("skips the candidates other objects hold (a replacement: the old object still holds its name)", async () => {
    const held = new Set([generatedName("edge", URN, 0), generatedName("edge", URN, 1)]);
    const asked: string[] = [];
    const taken = async (name: string) => {
      asked.push(name);
      return held.has(name);
    };
    const choice = await chooseName({}, unnamed(), { seed: URN, taken });
    expect(choice.metadata.name).toBe(generatedName("edge", URN, 2));
    expect(asked).toEqual([...held, generatedName("edge", URN, 2)]);
  });

  it("gives up, asking for metadata.name, when every candidate is held", async () => {
    const asked: string[] = [];
    const taken = async (name: string) => asked.push(name) > 0;
    await expect(chooseName({}, unnamed(), { seed: URN, taken })).rejects.toThrow(/set metadata\.name/);
    expect(asked).toHaveLength(NAME_CANDIDATES);
  });

  it("says which name it could not look up", async () => {
    const taken = async () => {
      throw new Error("connect ECONNREFUSED");
    };
    await expect(chooseName({}, unnamed(), { seed: URN, taken })).rejects.toThrow(
      `could not look up whether the generated name "${generatedName("edge", URN)}" is free on the API: connect ECONNREFUSED`,
    );
  });

  it("keeps the name chosen earlier, without asking", async () => {
    const olds = { ...unnamed(), metadata: { name: "edge-0a1b2" }, autoNamed: true };
    const taken = async () => {
      throw new Error("not asked");
    };
    expect(await chooseName(olds, unnamed(), { seed: URN, taken })).toEqual({
      metadata: { name: "edge-0a1b2" },
      autoNamed: true,
    });
    // Another logical name (no alias): a new name.
    expect((await chooseName(olds, unnamed("gateway"), { seed: URN })).metadata.name).toMatch(/^gateway-/);
  });

  describe("with Pulumi's autonaming options (pulumi:autonaming)", () => {
    it("uses the proposed or enforced name as given, without asking", async () => {
      const taken = async () => true;
      for (const mode of ["propose", "enforce"] as const) {
        const choice = await chooseName({}, unnamed(), {
          seed: URN,
          taken,
          autonaming: { mode, proposedName: "dev-edge-1a2b" },
        });
        expect(choice).toEqual({ metadata: { name: "dev-edge-1a2b" }, autoNamed: true });
      }
    });

    it("fails clearly on a proposal the API would refuse, or one over 63 characters", async () => {
      for (const proposedName of ["Edge_Proxy", "e".repeat(64), ""]) {
        const choice = await chooseName({}, unnamed(), { autonaming: { mode: "enforce", proposedName } });
        expect(choice.metadata.name).toBeUndefined();
        expect(choice.failure).toMatch(
          /^metadata\.name: the name ".*" that the `pulumi:autonaming` config gives /,
        );
      }
    });

    it("fails with `disabled`, asking for metadata.name", async () => {
      const choice = await chooseName({}, unnamed(), { autonaming: { mode: "disable", proposedName: "" } });
      expect(choice.failure).toMatch(/^metadata\.name: is required: the `pulumi:autonaming` config disables/);
    });

    it("changes neither a program's name nor one kept in state", async () => {
      const disable = { mode: "disable", proposedName: "" } as const;
      expect(await chooseName({}, unnamed("edge", { name: "chosen" }), { autonaming: disable })).toEqual({
        metadata: { name: "chosen" },
        autoNamed: false,
      });
      const olds = { ...unnamed(), metadata: { name: "edge-0a1b2" }, autoNamed: true };
      expect((await chooseName(olds, unnamed(), { autonaming: disable })).metadata.name).toBe("edge-0a1b2");
    });
  });
});
