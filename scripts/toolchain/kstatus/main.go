// kstatus: what sigs.k8s.io/cli-utils' status.Compute (kstatus, as Flux, kpt and cli-utils read readiness)
// says of objects. Reads a JSON object or a Kubernetes list (`kubectl get -o json`) on stdin and prints one
// JSON line per object: {"name", "kind", "status", "message"}, status being Current, InProgress, Failed,
// Terminating, NotFound or Unknown. Built by scripts/toolchain/kstatus.sh, cached by cli-utils version.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type line struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Status  string `json:"status"`
	Message string `json:"message"`
}

func main() {
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err)
	}
	var object map[string]interface{}
	// As client-go decodes: whole numbers as int64 (kstatus reads metadata.generation as one).
	if err := utiljson.Unmarshal(input, &object); err != nil {
		fail(err)
	}
	items := []interface{}{object}
	if listed, ok := object["items"].([]interface{}); ok {
		items = listed
	}
	out := json.NewEncoder(os.Stdout)
	for _, item := range items {
		content, ok := item.(map[string]interface{})
		if !ok {
			fail(fmt.Errorf("an item is not an object"))
		}
		u := &unstructured.Unstructured{Object: content}
		result, err := status.Compute(u)
		if err != nil {
			fail(err)
		}
		if err := out.Encode(line{u.GetName(), u.GetKind(), result.Status.String(), result.Message}); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kstatus:", err)
	os.Exit(1)
}
