package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// userActionableExit is the exit code with which @pulumi/pulumi's runner says it has already shown the user an
// actionable message: the engine then bails without adding an error of its own.
const userActionableExit = 32

// Run starts the program with the runner of the @pulumi/pulumi the program installed (cmd/run), connected to
// the engine's resource monitor directly. The v3.68.0 host put a proxy of the monitor's API of its day in
// between, which refuses what programs call today (RegisterResourceHook for resource hooks, among others).
// The arguments and environment are those the official host gives the runner.
func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	dir := info.GetProgramDirectory()
	if dir == "" {
		dir = req.GetPwd()
	}
	entry := info.GetEntryPoint()
	if entry == "" {
		entry = req.GetProgram()
	}
	if entry == "" {
		// Node then loads the package's main (or ./index.js).
		entry = "."
	}
	runner, err := resolveModule(dir, "@pulumi/pulumi/cmd/run")
	if err != nil {
		return &pulumirpc.RunResponse{Error: fmt.Sprintf(
			"it looks like the Pulumi SDK has not been installed in %s: run npm install (%v)", dir, err)}, nil
	}

	args := []string{runner}
	add := func(flag, value string) {
		if value != "" {
			args = append(args, "--"+flag, value)
		}
	}
	add("monitor", req.GetMonitorAddress())
	add("engine", h.engine)
	add("organization", req.GetOrganization())
	add("project", req.GetProject())
	add("stack", req.GetStack())
	add("pwd", dir)
	add("root-directory", info.GetRootDirectory())
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	add("query-mode", fmt.Sprint(req.GetQueryMode()))
	add("parallel", fmt.Sprint(req.GetParallel()))
	args = append(append(args, entry), req.GetArgs()...)

	env, nodeArgs, err := runEnvironment(req)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	cmd := exec.CommandContext(ctx, "node", append(nodeArgs, args...)...)
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	cmd.Env = env
	err = cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return &pulumirpc.RunResponse{}, nil
	case errors.As(err, &exitErr) && exitErr.ExitCode() == userActionableExit:
		return &pulumirpc.RunResponse{Bail: true}, nil
	case errors.As(err, &exitErr):
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exitErr.ExitCode())}, nil
	default:
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("could not run the program: %v", err)}, nil
	}
}

// runEnvironment is the runner's environment (the stack's config, which keys are secret, the project's
// runtime options) and the node arguments the options ask for.
func runEnvironment(req *pulumirpc.RunRequest) ([]string, []string, error) {
	config := req.GetConfig()
	if config == nil {
		config = map[string]string{}
	}
	configJSON, err := json.Marshal(config)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to serialize the configuration: %w", err)
	}
	secretKeys := req.GetConfigSecretKeys()
	if secretKeys == nil {
		secretKeys = []string{}
	}
	secretJSON, err := json.Marshal(secretKeys)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to serialize the secret configuration keys: %w", err)
	}
	env := append(os.Environ(), "PULUMI_CONFIG="+string(configJSON), "PULUMI_CONFIG_SECRET_KEYS="+string(secretJSON))

	options := req.GetInfo().GetOptions().AsMap()
	// TypeScript is on unless the project's runtime options turn it off, as in the official host.
	if typescript, ok := options["typescript"].(bool); !ok || typescript {
		env = append(env, "PULUMI_NODEJS_TYPESCRIPT=true")
	}
	if tsconfig, ok := options["tsconfig"].(string); ok && tsconfig != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+tsconfig)
	}
	var nodeArgs []string
	if given, ok := options["nodeargs"].(string); ok {
		nodeArgs = strings.Fields(given)
	}
	return env, nodeArgs, nil
}
