// The peer provider the benchmark compares against: pulumi-kubernetes' plugin, as upstream's
// provider/cmd/pulumi-resource-kubernetes/main.go. peer.sh generates the two embedded files from the
// module's schema.json and terraform-mapping.json (as upstream's generate.go does) before it builds.
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema-embed.json
var pulumiSchema []byte

//go:embed terraform-mapping-embed.json
var terraformMapping []byte

func main() {
	provider.Serve("kubernetes", version.Version, pulumiSchema, terraformMapping)
}
