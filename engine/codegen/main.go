// Command gopveqemu-codegen turns the gopveqemu package schema into SDKs with
// Pulumi's own code generators (pkg/v3/codegen), in process: no language host
// is needed, and the CLI's `package gen-sdk` would want one per language.
//
//	gopveqemu-codegen -schema schema/schema.json -validate
//	gopveqemu-codegen -schema schema/schema.json -out sdk -pulumi-sdk v3.276.0
//
// -validate binds the schema against Pulumi's metaschema and exits non-zero
// with its diagnostics; -out writes <out>/nodejs, <out>/python and <out>/go,
// each folder replaced whole so that no stale file survives a change.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"golang.org/x/mod/modfile"
)

// The name the generated files give as their generator.
const tool = "pulumi-gen-gopveqemu"

// noReferences answers every request for another package with an error: the
// schema uses only its own types and Pulumi's built-in ones.
type noReferences struct{}

var errNoReferences = errors.New("the gopveqemu schema may not reference other packages")

func (noReferences) LoadPackage(string, *semver.Version) (*schema.Package, error) {
	return nil, errNoReferences
}

func (noReferences) LoadPackageV2(context.Context, *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, errNoReferences
}

func (noReferences) LoadPackageReference(string, *semver.Version) (schema.PackageReference, error) {
	return nil, errNoReferences
}

func (noReferences) LoadPackageReferenceV2(
	context.Context, *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, errNoReferences
}

func main() {
	schemaPath := flag.String("schema", "schema/schema.json", "the package schema (JSON)")
	out := flag.String("out", "", "the folder to write nodejs/, python/ and go/ into")
	validate := flag.Bool("validate", false, "only validate the schema")
	pulumiSDK := flag.String("pulumi-sdk", "", "the github.com/pulumi/pulumi/sdk/v3 version the Go SDK's go.mod requires")
	flag.Parse()
	if err := run(*schemaPath, *out, *validate, *pulumiSDK); err != nil {
		fmt.Fprintf(os.Stderr, "gopveqemu-codegen: %v\n", err)
		os.Exit(1)
	}
}

func run(schemaPath, out string, validate bool, pulumiSDK string) error {
	if !validate && out == "" {
		return errors.New("give -validate or -out <folder>")
	}
	if _, err := bind(schemaPath); err != nil {
		return err
	}
	if validate {
		fmt.Printf("%s: a valid Pulumi package schema\n", schemaPath)
		return nil
	}
	for _, lang := range []string{"nodejs", "python", "go"} {
		// Each generator records its language's info on the package: bind afresh for each.
		pkg, err := bind(schemaPath)
		if err != nil {
			return err
		}
		files, err := generate(lang, pkg, pulumiSDK)
		if err != nil {
			return fmt.Errorf("%s SDK: %w", lang, err)
		}
		if err := write(filepath.Join(out, lang), files); err != nil {
			return err
		}
		fmt.Printf("%s: %d files\n", filepath.Join(out, lang), len(files))
	}
	return nil
}

// bind reads and validates the schema; every diagnostic is printed, and any error fails.
func bind(schemaPath string) (*schema.Package, error) {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return nil, err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil, fmt.Errorf("%s: not a package schema: %w", schemaPath, err)
	}
	pkg, diags, err := schema.BindSpec(spec, noReferences{}, schema.ValidationOptions{})
	for _, d := range diags {
		msg := d.Summary
		if d.Detail != "" {
			msg += "; " + d.Detail
		}
		fmt.Fprintf(os.Stderr, "%s: %s\n", schemaPath, msg)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", schemaPath, err)
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s: %d problem(s) (above)", schemaPath, len(diags.Errs()))
	}
	return pkg, nil
}

func generate(lang string, pkg *schema.Package, pulumiSDK string) (map[string][]byte, error) {
	switch lang {
	case "nodejs":
		return nodejs.GeneratePackage(tool, pkg, nil, nil, false, noReferences{})
	case "python":
		return python.GeneratePackage(tool, pkg, nil, noReferences{})
	default:
		files, err := gogen.GeneratePackage(tool, pkg, nil)
		if err != nil || pulumiSDK == "" {
			return files, err
		}
		files["go.mod"], err = requireSDK(files["go.mod"], pulumiSDK)
		return files, err
	}
}

// requireSDK pins the Go SDK's go.mod to the Pulumi SDK this repository
// builds its engine from (the generator writes its own default).
func requireSDK(gomod []byte, version string) ([]byte, error) {
	f, err := modfile.Parse("go.mod", gomod, nil)
	if err != nil {
		return nil, err
	}
	if err := f.AddRequire("github.com/pulumi/pulumi/sdk/v3", version); err != nil {
		return nil, err
	}
	return f.Format()
}

func write(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if strings.Contains(name, "..") {
			return fmt.Errorf("generated file %q leaves its folder", name)
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}
