// Command gen-sdk generates the SDKs of a Pulumi package schema with the code generators of
// github.com/pulumi/pulumi/pkg/v3, the same packages the official language hosts call when `pulumi package
// gen-sdk` asks them (GeneratePackage). The language hosts this machine can build cannot answer that call:
// the Node.js host here is the v3.68.0 host behind a wrapper (no GeneratePackage), and the Go and Python hosts
// are modules the Go proxy refuses. .NET's generator is not in pkg/v3 (it lives in pulumi-dotnet).
//
//	gen-sdk -schema schema.json -out build/sdks -language nodejs,go,python
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blang/semver"
	"github.com/segmentio/encoding/json"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

const tool = "pulumi"

// noLoader answers every lookup of another package with an error: the schema references none (only the
// built-in pulumi.json#/Any), so generation never needs one.
type noLoader struct{}

var errNoPackages = errors.New("this schema references no other package")

func (noLoader) LoadPackage(string, *semver.Version) (*schema.Package, error) { return nil, errNoPackages }
func (noLoader) LoadPackageV2(context.Context, *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, errNoPackages
}

func (noLoader) LoadPackageReference(string, *semver.Version) (schema.PackageReference, error) {
	return nil, errNoPackages
}

func (noLoader) LoadPackageReferenceV2(context.Context, *schema.PackageDescriptor) (schema.PackageReference, error) {
	return nil, errNoPackages
}

func main() {
	schemaPath := flag.String("schema", "", "the package schema (JSON)")
	out := flag.String("out", "", "the directory that receives one folder per language")
	languages := flag.String("language", "nodejs,go,python", "comma-separated: nodejs, go, python")
	flag.Parse()
	if err := run(*schemaPath, *out, strings.Split(*languages, ",")); err != nil {
		fmt.Fprintf(os.Stderr, "gen-sdk: %v\n", err)
		os.Exit(1)
	}
}

// bind reads and validates the schema; each language gets its own bound copy, since generators record
// their language's settings on the package.
func bind(schemaPath string) (*schema.Package, error) {
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		return nil, err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		return nil, fmt.Errorf("%s: %w", schemaPath, err)
	}
	pkg, diags, err := schema.BindSpec(spec, noLoader{}, schema.ValidationOptions{})
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s is not a valid package schema: %w", schemaPath, diags)
	}
	return pkg, nil
}

func run(schemaPath, out string, languages []string) error {
	if schemaPath == "" || out == "" {
		return errors.New("-schema and -out are required")
	}
	for _, language := range languages {
		pkg, err := bind(schemaPath)
		if err != nil {
			return err
		}
		var files map[string][]byte
		switch language {
		case "nodejs":
			files, err = nodejs.GeneratePackage(tool, pkg, nil, nil, false, noLoader{})
		case "go":
			files, err = gogen.GeneratePackage(tool, pkg, nil)
		case "python":
			files, err = python.GeneratePackage(tool, pkg, nil, noLoader{})
		default:
			return fmt.Errorf("no generator for %q here (nodejs, go, python)", language)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", language, err)
		}
		dir := filepath.Join(out, language)
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		for name, content := range files {
			path := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				return err
			}
		}
		fmt.Printf("gen-sdk: %s SDK in %s (%d files)\n", language, dir, len(files))
	}
	return nil
}
