// client-go against the project's API (issue 47, "any client"): what a Go controller or tool does with the
// three kinds, run against the local server and kube-apiserver alike by test/kube/client-go.test.ts:
//
//   - a dynamic shared informer with a resync period: the add of a new Proxy, then resyncs (updates of the
//     same resourceVersion) every period;
//   - server-side apply by two field managers: the second one's change of the first one's field is a
//     conflict, and with force it takes the field over;
//   - a watch resumed from a bookmark: a watch-list (sendInitialEvents) ends its initial events with a
//     bookmark; a new watch from that bookmark's resourceVersion adds the object created in between first.
//
// Prints one JSON object of what it saw; exits 1 when a check fails. Built by scripts/toolchain/client-go.sh.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
)

var proxies = schema.GroupVersionResource{Group: "core.example.dev", Version: "v1alpha2", Resource: "proxies"}

type report struct {
	InformerAdds    int64    `json:"informerAdds"`
	InformerResyncs int64    `json:"informerResyncs"`
	ApplyConflict   string   `json:"applyConflict"`
	ForcedManagers  []string `json:"forcedManagers"`
	BookmarkVersion string   `json:"bookmarkVersion"`
	ResumedFirst    string   `json:"resumedFirst"`
	Failures        []string `json:"failures"`
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	prefix := flag.String("prefix", "cg", "name prefix of the Proxies it creates")
	flag.Parse()
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	must(err)
	client, err := dynamic.NewForConfig(config)
	must(err)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out := report{ForcedManagers: []string{}, Failures: []string{}}
	fail := func(format string, args ...interface{}) {
		out.Failures = append(out.Failures, fmt.Sprintf(format, args...))
	}
	name := *prefix + "-informed"

	// A dynamic informer, resync every second.
	factory := dynamicinformer.NewDynamicSharedInformerFactory(client, time.Second)
	informer := factory.ForResource(proxies).Informer()
	var adds, resyncs atomic.Int64
	_, err = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			if obj.(*unstructured.Unstructured).GetName() == name {
				adds.Add(1)
			}
		},
		UpdateFunc: func(old, obj interface{}) {
			o, n := old.(*unstructured.Unstructured), obj.(*unstructured.Unstructured)
			if n.GetName() == name && o.GetResourceVersion() == n.GetResourceVersion() {
				resyncs.Add(1)
			}
		},
	})
	must(err)
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		fail("the informer's cache did not sync")
	}
	proxy := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "core.example.dev/v1alpha2", "kind": "Proxy",
		"metadata": map[string]interface{}{"name": name}, "spec": map[string]interface{}{},
	}}
	_, err = client.Resource(proxies).Create(ctx, proxy, metav1.CreateOptions{})
	must(err)
	// Long enough for a few resyncs (the Proxy changes once more meanwhile: the controller's status write).
	time.Sleep(3500 * time.Millisecond)
	out.InformerAdds, out.InformerResyncs = adds.Load(), resyncs.Load()
	if out.InformerAdds != 1 {
		fail("informer adds of %s: %d, not 1", name, out.InformerAdds)
	}
	if out.InformerResyncs < 2 {
		fail("informer resyncs of %s in 3.5 s at a 1 s period: %d", name, out.InformerResyncs)
	}

	// Server-side apply: two managers, a conflict, then force.
	applied := *prefix + "-applied"
	apply := func(manager, provider string, force bool) error {
		body, _ := json.Marshal(map[string]interface{}{
			"apiVersion": "core.example.dev/v1alpha2", "kind": "Proxy",
			"metadata": map[string]interface{}{"name": applied}, "spec": map[string]interface{}{"provider": provider},
		})
		_, err := client.Resource(proxies).Patch(ctx, applied, types.ApplyPatchType, body,
			metav1.PatchOptions{FieldManager: manager, Force: ptr.To(force)})
		return err
	}
	if err := apply("client-go-one", "aws", false); err != nil {
		fail("first apply: %v", err)
	}
	err = apply("client-go-two", "gcp", false)
	if err == nil || !apierrors.IsConflict(err) {
		fail("the second manager's apply of spec.provider: %v, not a conflict", err)
	} else {
		out.ApplyConflict = err.Error()
	}
	if err := apply("client-go-two", "gcp", true); err != nil {
		fail("forced apply: %v", err)
	}
	got, err := client.Resource(proxies).Get(ctx, applied, metav1.GetOptions{})
	must(err)
	for _, entry := range got.GetManagedFields() {
		if entry.Operation == metav1.ManagedFieldsOperationApply {
			out.ForcedManagers = append(out.ForcedManagers, entry.Manager)
		}
	}
	if provider, _, _ := unstructured.NestedString(got.Object, "spec", "provider"); provider != "gcp" {
		fail("spec.provider after the forced apply: %q", provider)
	}

	// A watch-list ends its initial events with a bookmark; resume from it.
	first, err := client.Resource(proxies).Watch(ctx, metav1.ListOptions{
		SendInitialEvents:    ptr.To(true),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  true,
	})
	must(err)
	for event := range first.ResultChan() {
		if event.Type != watch.Bookmark {
			continue
		}
		meta := event.Object.(*unstructured.Unstructured)
		if meta.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
			out.BookmarkVersion = meta.GetResourceVersion()
			break
		}
	}
	first.Stop()
	if out.BookmarkVersion == "" {
		fail("no initial-events-end bookmark")
	} else {
		resumedName := *prefix + "-resumed"
		proxy.SetName(resumedName)
		_, err = client.Resource(proxies).Create(ctx, proxy, metav1.CreateOptions{})
		must(err)
		resumed, err := client.Resource(proxies).Watch(ctx, metav1.ListOptions{
			ResourceVersion: out.BookmarkVersion, AllowWatchBookmarks: true,
		})
		must(err)
		// Changes to objects the watch-list sent may follow (the controller's status writes); the first
		// object the resumed watch adds is the one created after the bookmark: nothing is replayed.
		for event := range resumed.ResultChan() {
			if event.Type == watch.Bookmark || event.Type == watch.Modified {
				continue
			}
			out.ResumedFirst = fmt.Sprintf("%s %s", event.Type, event.Object.(*unstructured.Unstructured).GetName())
			break
		}
		resumed.Stop()
		if out.ResumedFirst != "ADDED "+resumedName {
			fail("the first event resumed from the bookmark: %q, not ADDED %s", out.ResumedFirst, resumedName)
		}
	}
	encoded, _ := json.Marshal(out)
	fmt.Println(string(encoded))
	if len(out.Failures) > 0 {
		os.Exit(1)
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "client-go:", err)
		os.Exit(2)
	}
}
