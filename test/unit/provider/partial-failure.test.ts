import { describe, expect, it } from "vitest";
import { PartialFailure, partialFailure } from "../../../provider/partial-failure";
import type { ObjectInputs, ObjectOutputs } from "../../../provider/state";

const inputs: ObjectInputs = { metadata: { name: "edge" }, spec: {}, __provider: "exports.handler = x;" };
const outputs = { ...inputs, metadata: { name: "edge", uid: "u-1" }, status: {} } as ObjectOutputs;

describe("PartialFailure", () => {
  it("carries what the engine records: the id, the properties with the serialized provider, the reasons", () => {
    const error = partialFailure('Proxy "edge" was written but did not become ready', inputs, outputs);
    expect(error).toBeInstanceOf(PartialFailure);
    expect(error).toBeInstanceOf(Error);
    expect(error.id).toBe("edge");
    expect(error.properties).toMatchObject({ metadata: { uid: "u-1" }, __provider: inputs.__provider });
    expect(error.reasons).toEqual([error.message]);
  });

  it("keeps message, id and reasons when a host translates its properties", () => {
    const error = new PartialFailure("not ready", "edge", { a: 1 }, ["first", "second"]);
    const translated = error.withProperties({ b: 2 });
    expect(translated).toBeInstanceOf(PartialFailure);
    expect(translated).toMatchObject({ message: "not ready", id: "edge", reasons: ["first", "second"] });
    expect(translated.properties).toEqual({ b: 2 });
  });
});
