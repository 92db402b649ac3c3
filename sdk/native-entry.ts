// `@exampledev/pulumi/native` at run time: the Node version check, then the SDK generated from the native
// schema (sdk/native/, compiled by tsconfig.native.json). A plain `require`, so that this build does not
// type-check the generated code; the subpath's types are sdk/native's own (package.json `exports`).
import "./shared/node-version"; // first: fails on a Node older than the package needs, before anything loads

module.exports = require("./native");
