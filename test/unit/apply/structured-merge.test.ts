import { describe, expect, it } from "vitest";
import { FieldSet, formatPath, keyElement } from "../../../server/resources/managed-fields/fieldset";
import { decodeManagedFields, transferOwnership } from "../../../server/resources/managed-fields/ownership";
import { objectStructure, type Structure } from "../../../server/resources/managed-fields/structure";
import {
  compare,
  configProblems,
  fieldSetOf,
  merge,
  removePaths,
} from "../../../server/resources/managed-fields/values";

const ENV: Structure = {
  type: "list",
  keys: ["name"],
  items: { type: "struct", fields: { name: { type: "atomic" }, value: { type: "atomic" } } },
};

describe("field sets", () => {
  it("write FieldsV1 as Kubernetes does: '.' for a container that is itself owned, keys sorted", () => {
    const set = FieldSet.of([
      ["f:spec", "f:env"],
      ["f:spec", "f:env", 'k:{"name":"B"}'],
      ["f:spec", "f:env", 'k:{"name":"B"}', "f:value"],
      ["f:spec", "f:env", 'k:{"name":"A"}'],
      ["f:metadata", "f:labels", "f:app"],
    ]);
    expect(set.toFieldsV1()).toEqual({
      "f:metadata": { "f:labels": { "f:app": {} } },
      "f:spec": {
        "f:env": { ".": {}, 'k:{"name":"A"}': {}, 'k:{"name":"B"}': { ".": {}, "f:value": {} } },
      },
    });
    expect(JSON.stringify(set.toFieldsV1()["f:spec"])).toMatch(/^\{"f:env":\{"\.":\{\}/);
  });

  it("read FieldsV1 back into the same set, and refuse what is not a trie of path elements", () => {
    const set = FieldSet.of([["f:spec", "f:a"], ["f:spec", "f:b"], ["f:spec"]]);
    expect(FieldSet.fromFieldsV1(set.toFieldsV1())?.equals(set)).toBe(true);
    expect(FieldSet.fromFieldsV1({ spec: {} })).toBeUndefined();
    expect(FieldSet.fromFieldsV1({ "f:spec": "x" })).toBeUndefined();
    expect(FieldSet.fromFieldsV1({ ".": {} })).toBeUndefined();
  });

  it("count the named fields leading to a path as owned (EnsureNamedFieldsAreMembers)", () => {
    const set = FieldSet.of([["f:spec", "f:env", 'k:{"name":"A"}', "f:value"]]).withNamedParents();
    expect(set.has(["f:spec"])).toBe(true);
    expect(set.has(["f:spec", "f:env"])).toBe(true);
    expect(set.has(["f:spec", "f:env", 'k:{"name":"A"}'])).toBe(false);
  });

  it("print paths as Kubernetes prints them in conflicts", () => {
    expect(formatPath(["f:spec", "f:env", keyElement({ name: "A" }, ["name"]), "f:value"])).toBe(
      '.spec.env[name="A"].value',
    );
    expect(formatPath(["f:a", "i:3", 'v:"x"'])).toBe('.a[3][="x"]');
  });
});

describe("structured merge", () => {
  it("merges map-list items by key in structured-merge-diff's order", () => {
    const live = [
      { name: "A", value: "1" },
      { name: "B", value: "2" },
      { name: "C", value: "3" },
    ];
    // Shared items are merged where they are; an item only the configuration has comes once the live items
    // before the next shared one are out.
    expect(
      merge(ENV, live, [
        { name: "B", value: "20" },
        { name: "D", value: "4" },
      ]),
    ).toEqual([
      { name: "A", value: "1" },
      { name: "B", value: "20" },
      { name: "C", value: "3" },
      { name: "D", value: "4" },
    ]);
    // The configuration's order wins among the items it names.
    expect(
      merge(ENV, live, [
        { name: "C", value: "30" },
        { name: "E", value: "5" },
        { name: "A", value: "10" },
      ]),
    ).toEqual([
      { name: "B", value: "2" },
      { name: "C", value: "30" },
      { name: "E", value: "5" },
      { name: "A", value: "10" },
    ]);
  });

  it("replaces atomic lists whole and merges maps key by key", () => {
    const structure = objectStructure("Service");
    const live = {
      metadata: { labels: { a: "1" } },
      spec: { template: { spec: { runtime: { compatibilityFlags: ["x", "y"] } } } },
    };
    const config = {
      metadata: { labels: { b: "2" } },
      spec: { template: { spec: { runtime: { compatibilityFlags: ["z"] } } } },
    };
    expect(merge(structure, live, config)).toEqual({
      metadata: { labels: { a: "1", b: "2" } },
      spec: { template: { spec: { runtime: { compatibilityFlags: ["z"] } } } },
    });
  });

  it("owns what a configuration sets: leaves and list items, not the objects on the way", () => {
    const set = fieldSetOf(objectStructure("Service"), {
      metadata: { labels: { team: "edge" } },
      spec: {
        template: { spec: { env: [{ name: "A", value: "1" }], runtime: { compatibilityFlags: ["x"] } } },
      },
    });
    expect(set.toFieldsV1()).toEqual({
      "f:metadata": { "f:labels": { "f:team": {} } },
      "f:spec": {
        "f:template": {
          "f:spec": {
            "f:env": { 'k:{"name":"A"}': { ".": {}, "f:name": {}, "f:value": {} } },
            "f:runtime": { "f:compatibilityFlags": {} },
          },
        },
      },
    });
  });

  it("compares two values into added (containers too), modified and removed paths", () => {
    const changes = compare(
      ENV,
      [
        { name: "A", value: "1" },
        { name: "B", value: "2" },
      ],
      [
        { name: "A", value: "10" },
        { name: "C", value: "3" },
      ],
    );
    expect(changes.modified.paths()).toEqual([['k:{"name":"A"}', "f:value"]]);
    expect(changes.added.paths()).toEqual([
      ['k:{"name":"C"}'],
      ['k:{"name":"C"}', "f:name"],
      ['k:{"name":"C"}', "f:value"],
    ]);
    expect(changes.removed.has(['k:{"name":"B"}'])).toBe(true);
  });

  it("removes the nodes of a set, a removed container with its children", () => {
    const value = {
      spec: {
        template: {
          spec: {
            env: [
              { name: "A", value: "1" },
              { name: "B", value: "2" },
            ],
          },
        },
      },
    };
    const removed = removePaths(
      objectStructure("Service"),
      value,
      FieldSet.of([["f:spec", "f:template", "f:spec", "f:env", 'k:{"name":"A"}']]),
    );
    expect(removed).toEqual({ spec: { template: { spec: { env: [{ name: "B", value: "2" }] } } } });
  });

  it("refuses configuration items without their keys or with duplicate keys", () => {
    const problems = configProblems(objectStructure("Service"), {
      spec: { template: { spec: { env: [{ value: "1" }, { name: "A" }, { name: "A" }] } } },
    });
    expect(problems.map((problem) => problem.field)).toEqual([
      "spec.template.spec.env[0]",
      "spec.template.spec.env[2]",
    ]);
  });
});

describe("ownership", () => {
  const managers = decodeManagedFields([
    {
      manager: "a",
      operation: "Apply",
      apiVersion: "v",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:spec": { "f:x": {}, "f:y": {} } },
    },
    {
      manager: "b",
      operation: "Update",
      apiVersion: "v",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:spec": { "f:y": {} } },
    },
  ]).managers;

  it("moves the fields a write changes away from every other manager, and reports them as conflicts", () => {
    const changes = {
      added: new FieldSet(),
      modified: FieldSet.of([["f:spec", "f:y"]]),
      removed: FieldSet.of([["f:spec", "f:x"]]),
    };
    const { managers: after, conflicts } = transferOwnership(
      managers,
      { manager: "c", operation: "Apply" },
      changes,
    );
    expect(conflicts.map((conflict) => conflict.manager.manager).sort()).toEqual(["a", "b"]);
    // a loses y (taken) and x (removed): nothing left, so its entry goes; so does b's.
    expect(after).toEqual([]);
  });

  it("reads what is wrong with a malformed entry", () => {
    const { problems } = decodeManagedFields([
      { manager: 1, operation: "Patch", fieldsType: "FieldsV2", fieldsV1: [] },
    ]);
    expect(problems.map((problem) => problem.field)).toEqual([
      "metadata.managedFields[0].manager",
      "metadata.managedFields[0].operation",
      "metadata.managedFields[0].fieldsType",
      "metadata.managedFields[0].fieldsV1",
    ]);
  });
});
