// pulumi-language-nodejs: the language host through which the Pulumi CLI runs
// this project's Node.js programs.
//
// Pulumi's own Node.js language host lives in a nested Go module of the Pulumi
// repository that the Go module proxy does not serve, so the engine build
// cannot fetch it. This host speaks the same LanguageRuntime gRPC protocol
// (from Pulumi's published sdk/v3 module) and runs a program exactly the way
// Pulumi's host does: a separate `node` process running the SDK's own
// `@pulumi/pulumi/cmd/run` entry point, with config passed in PULUMI_CONFIG.
// Only what `preview`, `up`, `refresh`, `destroy` and the Automation API need
// is implemented; the rest answers Unimplemented, which the engine tolerates.
// It leaves with the engine that started it, killed or not (engine.go).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// version is stamped at build time (-X main.version=...).
var version = "0.0.0-dev"

// nodeExitedAfterReportingError is the exit code @pulumi/pulumi/cmd/run uses
// when the program failed and the error was already shown to the user.
const nodeExitedAfterReportingError = 32

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	engineAddress string
	engine        *engineWatch
}

func main() {
	h := &host{engine: newEngineWatch()}
	// The engine passes its own address as the last argument (and again in Handshake).
	if n := len(os.Args); n > 1 && !strings.HasPrefix(os.Args[n-1], "-") {
		h.engineAddress = os.Args[n-1]
		if err := h.engine.watch(h.engineAddress); err != nil {
			fmt.Fprintf(os.Stderr, "fatal: could not watch the engine at %s: %v\n", h.engineAddress, err)
			os.Exit(1)
		}
	}
	serve(h)
}

func serve(h *host) {
	cancel := make(chan bool)
	var once sync.Once
	stop := func() { once.Do(func() { close(cancel) }) }
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() { <-sig; stop() }()
	h.engine.leaveWithEngine(stop)

	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: cancel,
		Init: func(s *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(s, h)
			return nil
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "fatal: could not start language host: %v\n", err)
		os.Exit(1)
	}
	// The engine reads the port from the first line of stdout.
	fmt.Println(handle.Port)
	err = <-handle.Done
	if h.engine.isGone() {
		h.engine.leave()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "fatal: language host stopped: %v\n", err)
		os.Exit(1)
	}
}

func (h *host) Handshake(_ context.Context, req *pulumirpc.LanguageHandshakeRequest) (*pulumirpc.LanguageHandshakeResponse, error) {
	h.engineAddress = req.GetEngineAddress()
	if h.engineAddress == "" {
		return &pulumirpc.LanguageHandshakeResponse{}, nil
	}
	if err := h.engine.watch(h.engineAddress); err != nil {
		return nil, fmt.Errorf("watching the engine at %s: %w", h.engineAddress, err)
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

// The programs of this project need no plugin beyond the dynamic provider,
// which ships inside @pulumi/pulumi and is found on PATH.
func (h *host) GetRequiredPlugins(context.Context, *pulumirpc.GetRequiredPluginsRequest) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

func (h *host) GetRequiredPackages(context.Context, *pulumirpc.GetRequiredPackagesRequest) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

func (h *host) GetProgramDependencies(context.Context, *pulumirpc.GetProgramDependenciesRequest) (*pulumirpc.GetProgramDependenciesResponse, error) {
	return &pulumirpc.GetProgramDependenciesResponse{}, nil
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

// Dependencies are installed by `npm ci` in this project, never by the engine.
func (h *host) InstallDependencies(*pulumirpc.InstallDependenciesRequest, grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse]) error {
	return nil
}

func (h *host) RuntimeOptionsPrompts(context.Context, *pulumirpc.RuntimeOptionsRequest) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

func (h *host) About(ctx context.Context, _ *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	node, err := findNode(mustGetwd())
	if err != nil {
		return nil, err
	}
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("running %s --version: %w", node, err)
	}
	return &pulumirpc.AboutResponse{Executable: node, Version: string(out)}, nil
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	programDir, entry := req.GetPwd(), req.GetProgram()
	if info := req.GetInfo(); info != nil && info.GetProgramDirectory() != "" {
		programDir = info.GetProgramDirectory()
		entry = info.GetEntryPoint()
	}
	if entry == "" {
		entry = "."
	}
	node, err := findNode(programDir)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	runScript, err := findUp(programDir, filepath.Join("node_modules", "@pulumi", "pulumi", "cmd", "run"))
	if err != nil {
		return &pulumirpc.RunResponse{Error: "cannot find @pulumi/pulumi above " + programDir + ": run `npm ci` first"}, nil
	}

	args := []string{runScript,
		"--monitor=" + req.GetMonitorAddress(),
		"--project=" + req.GetProject(),
		"--stack=" + req.GetStack(),
		"--pwd=" + req.GetPwd(),
		"--organization=" + req.GetOrganization(),
	}
	if h.engineAddress != "" {
		args = append(args, "--engine="+h.engineAddress)
	}
	if info := req.GetInfo(); info != nil && info.GetRootDirectory() != "" {
		args = append(args, "--root-directory="+info.GetRootDirectory())
	}
	if req.GetParallel() > 0 {
		args = append(args, "--parallel="+strconv.Itoa(int(req.GetParallel())))
	}
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	args = append(args, filepath.Join(programDir, entry))
	args = append(args, req.GetArgs()...)

	env, err := programEnv(req)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	cmd, release := h.engine.programCommand(ctx, node, args...)
	defer release()
	cmd.Dir = req.GetPwd()
	cmd.Env = env
	// The program's own output is the user's: pass it straight through.
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			if exit.ExitCode() == nodeExitedAfterReportingError {
				return &pulumirpc.RunResponse{Bail: true}, nil
			}
			return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exit.ExitCode())}, nil
		}
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}

// programEnv is the environment of the program's node process: the CLI's own,
// plus config and the runtime options of Pulumi.yaml (typescript, tsconfig).
func programEnv(req *pulumirpc.RunRequest) ([]string, error) {
	config, err := json.Marshal(req.GetConfig())
	if err != nil {
		return nil, err
	}
	secretKeys := req.GetConfigSecretKeys()
	if secretKeys == nil {
		secretKeys = []string{}
	}
	secrets, err := json.Marshal(secretKeys)
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(), "PULUMI_CONFIG="+string(config), "PULUMI_CONFIG_SECRET_KEYS="+string(secrets))

	typescript := true
	var opts map[string]any
	if info := req.GetInfo(); info != nil && info.GetOptions() != nil {
		opts = info.GetOptions().AsMap()
	}
	if v, ok := opts["typescript"].(bool); ok {
		typescript = v
	}
	env = append(env, "PULUMI_NODEJS_TYPESCRIPT="+strconv.FormatBool(typescript))
	if v, ok := opts["tsconfig"].(string); ok && v != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+v)
	}
	if v, ok := opts["nodeargs"].(string); ok && v != "" {
		env = append(env, "NODE_OPTIONS="+v)
	}
	return env, nil
}

// findNode prefers the Node.js that the project installs (node_modules/.bin/node,
// from the npm `node` package) over whatever `node` is first on PATH.
func findNode(from string) (string, error) {
	if p, err := findUp(from, filepath.Join("node_modules", ".bin", "node")); err == nil {
		return p, nil
	}
	p, err := exec.LookPath("node")
	if err != nil {
		return "", errors.New("cannot find node: run `npm ci` in the project (it installs Node.js 22)")
	}
	return p, nil
}

// findUp returns dir/rel for the first ancestor dir of start that has it.
func findUp(start, rel string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		candidate := filepath.Join(dir, rel)
		if _, err := os.Stat(candidate); err == nil {
			return candidate, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

func mustGetwd() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}
