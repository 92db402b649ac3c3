//go:build tools

// Package tools pins the Go language host. Its own module (github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3)
// answers 403 at the Go proxy here, and sdk/v3 v3.68.0 no longer carries it, but sdk/v3 v3.60.0 still has
// go/pulumi-language-go and the proxy serves it. scripts/native/go-host.ts builds it.
package tools

import _ "github.com/pulumi/pulumi/sdk/v3/go/pulumi-language-go"
