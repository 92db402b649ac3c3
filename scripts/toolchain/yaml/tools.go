//go:build tools

// Package tools pins github.com/pulumi/pulumi-yaml's two commands, which scripts/toolchain/yaml.sh builds:
// the YAML language host (pulumi-language-yaml) and the converter `pulumi convert --from yaml` runs
// (pulumi-converter-yaml), against the same pkg/sdk as the pinned CLI.
package tools

import (
	_ "github.com/pulumi/pulumi-yaml/cmd/pulumi-converter-yaml"
	_ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
)
