// The gopveqemu resource plugin's Go consumer, as an Automation API inline
// program: one Vm, its cpu from the stack's config. Runs one operation per
// invocation:
//
//	consumer up|preview|refresh|destroy
//
// in the folder that becomes the stack's workspace, with the stack's name in
// CONSUMER_STACK and its configuration in CONSUMER_CONFIG (a JSON object: a
// string, or {"secret": value} for a secret). The engine's output goes to stdout and stderr as it comes;
// a failed operation exits 1. The Go SDK serves the program in-process, so no
// Go language host is needed.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/go-pve-qemu/pulumi-gopveqemu/sdk/go/gopveqemu"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func program(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	web, err := gopveqemu.NewVm(ctx, "web", &gopveqemu.VmArgs{
		Os:       gopveqemu.OsUbuntu,
		Version:  pulumi.String("24.04"),
		Name:     pulumi.String("web"),
		Cpu:      pulumi.Int(cfg.RequireInt("cpu")),
		MemoryMb: pulumi.Int(2048),
	})
	if err != nil {
		return err
	}
	ctx.Export("vmid", web.Vmid)
	ctx.Export("cpu", web.Cpu)
	return nil
}

func run(op string) error {
	ctx := context.Background()
	work, err := os.Getwd()
	if err != nil {
		return err
	}
	stack, err := auto.UpsertStackInlineSource(ctx, os.Getenv("CONSUMER_STACK"), "consumer-go", program, auto.WorkDir(work))
	if err != nil {
		return err
	}
	values := map[string]json.RawMessage{}
	if raw := os.Getenv("CONSUMER_CONFIG"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &values); err != nil {
			return fmt.Errorf("CONSUMER_CONFIG: %w", err)
		}
	}
	config := auto.ConfigMap{}
	for key, raw := range values {
		var plain string
		var secret struct{ Secret *string }
		switch {
		case json.Unmarshal(raw, &plain) == nil:
			config[key] = auto.ConfigValue{Value: plain}
		case json.Unmarshal(raw, &secret) == nil && secret.Secret != nil:
			config[key] = auto.ConfigValue{Value: *secret.Secret, Secret: true}
		default:
			return fmt.Errorf("CONSUMER_CONFIG %s: a string or {\"secret\": string}, not %s", key, raw)
		}
	}
	if err := stack.SetAllConfig(ctx, config); err != nil {
		return err
	}
	switch op {
	case "up":
		_, err = stack.Up(ctx, optup.ProgressStreams(os.Stdout), optup.ErrorProgressStreams(os.Stderr))
	case "preview":
		_, err = stack.Preview(ctx, optpreview.ProgressStreams(os.Stdout), optpreview.ErrorProgressStreams(os.Stderr),
			optpreview.ExpectNoChanges(), optpreview.Diff())
	case "refresh":
		_, err = stack.Refresh(ctx, optrefresh.ProgressStreams(os.Stdout), optrefresh.ErrorProgressStreams(os.Stderr))
	case "destroy":
		_, err = stack.Destroy(ctx, optdestroy.ProgressStreams(os.Stdout), optdestroy.ErrorProgressStreams(os.Stderr))
	default:
		return fmt.Errorf("unknown operation %q: up, preview, refresh or destroy", op)
	}
	return err
}

func main() {
	op := ""
	if len(os.Args) > 1 {
		op = os.Args[1]
	}
	if err := run(op); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
