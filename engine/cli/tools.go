//go:build tools

// Package cli pins the Pulumi CLI's main package so that `go build` of it
// resolves against this module's go.mod and go.sum.
package cli

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
