import "../sdk/shared/node-version"; // first: fails on a Node older than the package needs, before anything loads
import { PolicyPack } from "@pulumi/policy";
import { withReference } from "./metadata";
import { POLICIES } from "./policies";

// Constructing the pack starts serving it to the Pulumi engine, so this file only registers; the policies
// live in modules of their own that tests import.
new PolicyPack("exampledev", { policies: POLICIES.map(withReference) });
