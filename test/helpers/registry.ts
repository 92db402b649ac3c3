// The registry helpers live with the demo, which needs them too.
export * from "../../scripts/lib/registry";
