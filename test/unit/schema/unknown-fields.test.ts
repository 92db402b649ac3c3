import { expect, test } from "vitest";
import { findUnknownFields, stripUnknownFields, validateSpec } from "../../../sdk/schema";
import { cloudProxy, ociService, revision, withValue } from "./examples";

const typos = withValue(
  withValue(
    withValue(ociService, ["template", "spec", "colour"], "blue"),
    ["template", "spec", "env", 1, "vaule"],
    "x",
  ),
  ["source", "oci", "credentials", "pasword"],
  "pw",
);

test("findUnknownFields names the JSON path of each field the API does not define", () => {
  expect(findUnknownFields("Service", typos)).toEqual([
    "spec.source.oci.credentials.pasword",
    "spec.template.spec.colour",
    "spec.template.spec.env[1].vaule",
  ]);
});

test("stripUnknownFields removes exactly those fields", () => {
  expect(stripUnknownFields("Service", typos)).toEqual(ociService);
  expect(findUnknownFields("Service", stripUnknownFields("Service", typos))).toEqual([]);
});

test("keys of free-form maps are not unknown fields", () => {
  const spec = withValue(cloudProxy, ["telemetry", "accessLogs", "json", "anything"], { nested: true });
  expect(findUnknownFields("Proxy", spec)).toEqual([]);
  expect(stripUnknownFields("Proxy", spec)).toEqual(spec);
});

test("each unknown field is one error that suggests the intended name", () => {
  const found = validateSpec("Service", typos).filter((violation) => violation.rule === "unknown-field");
  expect(found.map(({ path, reason, severity }) => ({ path, reason, severity }))).toEqual([
    { path: "spec.source.oci.credentials.pasword", reason: "FieldValueInvalid", severity: "error" },
    { path: "spec.template.spec.colour", reason: "FieldValueInvalid", severity: "error" },
    { path: "spec.template.spec.env[1].vaule", reason: "FieldValueInvalid", severity: "error" },
  ]);
  expect(found[0]?.message).toContain('did you mean "password"?');
  expect(found[2]?.message).toContain('did you mean "value"?');
  expect(found[1]?.message).toContain("its fields are backend, bindings, egress, env, filter, runtime");
});

test('unknownFields: "ignore" skips them and reports everything else', () => {
  const spec = withValue(withValue(revision, ["extra"], 1), ["backend", "protocol"], "http3");
  expect(
    validateSpec("ServiceRevision", spec, { unknownFields: "ignore" }).map((violation) => violation.rule),
  ).toEqual(["enum-value"]);
});

test("non-objects have no unknown fields", () => {
  for (const spec of [undefined, null, 3, "x", []]) {
    expect(findUnknownFields("Proxy", spec)).toEqual([]);
    expect(stripUnknownFields("Proxy", spec)).toEqual(spec);
  }
});
