// Command gomodzip lays out one version of a Go module as a module proxy
// serves it (the GOPROXY protocol, which a file:// URL or any static host
// can serve), so that `go get <module>@<version>` resolves it:
//
//	<out>/<escaped module path>/@v/list          the versions, one a line
//	<out>/<escaped module path>/@v/<version>.info {"Version", "Time"}
//	<out>/<escaped module path>/@v/<version>.mod  the go.mod
//	<out>/<escaped module path>/@v/<version>.zip  the module zip
//
// The zip is made by golang.org/x/mod/zip, the code the go command itself
// uses, so its layout (every file under "<module>@<version>/") and the files
// it leaves out (vendor/, nested modules) are the go command's.
//
//	gomodzip -dir sdk/go -version v0.1.0 -time 2026-01-02T03:04:05Z -out goproxy
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

func main() {
	dir := flag.String("dir", "", "the module's folder (holding its go.mod)")
	version := flag.String("version", "", "the version, vX.Y.Z")
	stamp := flag.String("time", "", "the version's time (RFC 3339); the commit's, so that a rebuild is the same")
	out := flag.String("out", "", "the proxy folder to write into")
	flag.Parse()
	if err := run(*dir, *version, *stamp, *out); err != nil {
		fmt.Fprintf(os.Stderr, "gomodzip: %v\n", err)
		os.Exit(1)
	}
}

func run(dir, version, stamp, out string) error {
	if dir == "" || version == "" || out == "" {
		return errors.New("give -dir, -version and -out")
	}
	if !semver.IsValid(version) || semver.Canonical(version) != version {
		return fmt.Errorf("%q is not a canonical semantic version (vX.Y.Z)", version)
	}
	when := time.Now().UTC()
	if stamp != "" {
		t, err := time.Parse(time.RFC3339, stamp)
		if err != nil {
			return err
		}
		when = t.UTC()
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	path := modfile.ModulePath(gomod)
	if path == "" {
		return fmt.Errorf("%s/go.mod names no module", dir)
	}
	mv := module.Version{Path: path, Version: version}
	if err := module.Check(path, version); err != nil {
		return err
	}
	escaped, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	at := filepath.Join(out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	zipFile, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		return err
	}
	if err := modzip.CreateFromDir(zipFile, mv, dir); err != nil {
		zipFile.Close()
		return err
	}
	if err := zipFile.Close(); err != nil {
		return err
	}
	// The zip just written must pass the checks the go command makes on a download.
	if _, err := modzip.CheckZip(mv, filepath.Join(at, version+".zip")); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    string
	}{version, when.Format(time.RFC3339)})
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		version + ".info": info,
		version + ".mod":  gomod,
		"list":            []byte(version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			return err
		}
	}
	fmt.Println(filepath.Join(at, version+".zip"))
	return nil
}
