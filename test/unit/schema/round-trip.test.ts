import { expect, test } from "vitest";
import {
  applyDefaults,
  findUnknownFields,
  ProxySpecSchema,
  ServiceRevisionSpecSchema,
  ServiceSpecSchema,
  validateSpec,
} from "../../../sdk/schema";
import { EXAMPLES } from "./examples";

const SCHEMAS = {
  Proxy: ProxySpecSchema,
  Service: ServiceSpecSchema,
  ServiceRevision: ServiceRevisionSpecSchema,
};

test.each(EXAMPLES.map((example) => [example.name, example] as const))(
  "%s validates cleanly before and after defaulting, and defaulting is stable",
  (_name, { kind, spec }) => {
    expect(validateSpec(kind, spec)).toEqual([]);
    expect(findUnknownFields(kind, spec)).toEqual([]);
    const defaulted = applyDefaults(kind, spec);
    expect(validateSpec(kind, defaulted)).toEqual([]);
    expect(applyDefaults(kind, defaulted)).toEqual(defaulted);
    expect(JSON.parse(JSON.stringify(defaulted))).toEqual(defaulted);
  },
);

test.each(EXAMPLES.map((example) => [example.name, example] as const))(
  "%s parses with zod to exactly what applyDefaults gives",
  (_name, { kind, spec }) => {
    expect(SCHEMAS[kind].parse(spec)).toEqual(applyDefaults(kind, spec));
  },
);
