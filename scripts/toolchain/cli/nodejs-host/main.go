// Command pulumi-language-nodejs is the Node.js language host used by this project's pinned Pulumi CLI.
//
// The Go module proxy reachable here serves no recent module of the official Node.js language host: the last
// published module that contains it is github.com/pulumi/pulumi/sdk/v3 v3.68.0. That host still runs programs
// correctly against today's CLI and @pulumi/pulumi, but it answers RunPlugin with "not supported", and current
// CLIs start Node.js policy packs through RunPlugin. This host therefore starts the v3.68.0 host (the binary
// named by -compat-host, next to this one by default) and forwards to it what has not changed since (the
// program's plugins, dependencies, About). It serves the rest itself: Run with the program's own
// @pulumi/pulumi runner on the engine's monitor (run.go), RunPlugin by starting @pulumi/pulumi's
// run-policy-pack (analyzers) or the plugin's entry point, and GenerateProgram.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	pbempty "google.golang.org/protobuf/types/known/emptypb"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// version is stamped at build time with the CLI version this host ships with.
var version = "dev"

const compatHostName = "pulumi-language-nodejs-v3.68.0"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: pulumi-language-nodejs [flags] <engine address>")
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	compat, err := startCompatHost(filepath.Join(filepath.Dir(self), compatHostName), args)
	if err != nil {
		return err
	}
	defer compat.stop()

	cancel := make(chan bool)
	go func() {
		// When the compat host exits (the engine went away), stop serving too.
		_ = compat.cmd.Wait()
		close(cancel)
	}()

	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: cancel,
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, &host{compat: compat.client, engine: args[len(args)-1]})
			return nil
		},
	})
	if err != nil {
		return fmt.Errorf("could not start the language host RPC server: %w", err)
	}
	fmt.Printf("%d\n", handle.Port)
	return <-handle.Done
}

type compatHost struct {
	cmd    *exec.Cmd
	conn   *grpc.ClientConn
	client pulumirpc.LanguageRuntimeClient
}

// startCompatHost launches the v3.68.0 host with our own arguments and connects to the port it prints.
func startCompatHost(path string, args []string) (*compatHost, error) {
	cmd := exec.Command(path, args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("could not start %s: %w", path, err)
	}
	reader := bufio.NewReader(stdout)
	line, err := reader.ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("%s did not report its port: %w", path, err)
	}
	go func() { _, _ = io.Copy(os.Stderr, reader) }()

	conn, err := grpc.NewClient("127.0.0.1:"+strings.TrimSpace(line),
		grpc.WithTransportCredentials(insecure.NewCredentials()), rpcutil.GrpcChannelOptions())
	if err != nil {
		_ = cmd.Process.Kill()
		return nil, err
	}
	return &compatHost{cmd: cmd, conn: conn, client: pulumirpc.NewLanguageRuntimeClient(conn)}, nil
}

func (c *compatHost) stop() {
	_ = c.conn.Close()
	if c.cmd.ProcessState == nil {
		_ = c.cmd.Process.Kill()
	}
}

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	compat pulumirpc.LanguageRuntimeClient
	// engine is the engine's address, the last of the host's arguments (after its flags).
	engine string
}

func (h *host) GetPluginInfo(context.Context, *pbempty.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

func (h *host) GetRequiredPlugins(
	ctx context.Context, req *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return h.compat.GetRequiredPlugins(ctx, req)
}

func (h *host) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	return h.compat.About(ctx, req)
}

func (h *host) GetProgramDependencies(
	ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	return h.compat.GetProgramDependencies(ctx, req)
}

func (h *host) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse],
) error {
	stream, err := h.compat.InstallDependencies(server.Context(), req)
	if err != nil {
		return err
	}
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := server.Send(msg); err != nil {
			return err
		}
	}
}

// RunPlugin starts a Node.js plugin: a policy pack through @pulumi/pulumi's run-policy-pack, any other plugin
// through its package's entry point. Output is streamed back and the exit code is the last message.
func (h *host) RunPlugin(
	req *pulumirpc.RunPluginRequest, server grpc.ServerStreamingServer[pulumirpc.RunPluginResponse],
) error {
	dir := req.GetInfo().GetProgramDirectory()
	if dir == "" {
		dir = req.GetPwd()
	}
	entry := dir
	if req.GetKind() == "analyzer" {
		resolved, err := resolveModule(dir, "@pulumi/pulumi/cmd/run-policy-pack")
		if err != nil {
			return fmt.Errorf("it looks like the policy pack's dependencies are not installed "+
				"(could not find @pulumi/pulumi from %s): %w", dir, err)
		}
		entry = resolved
	}
	args := append([]string{entry}, req.GetArgs()...)
	if req.GetKind() == "analyzer" {
		args = append(args, dir)
	}

	cmd := exec.CommandContext(server.Context(), "node", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), req.GetEnv()...)
	cmd.Stdout = streamWriter{send: func(b []byte) error {
		return server.Send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stdout{Stdout: b}})
	}}
	cmd.Stderr = streamWriter{send: func(b []byte) error {
		return server.Send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stderr{Stderr: b}})
	}}
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return fmt.Errorf("could not run plugin in %s: %w", dir, err)
	}
	code := int32(0)
	if exitErr != nil {
		code = int32(exitErr.ExitCode())
	}
	return server.Send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: code}})
}

// resolveModule asks Node itself, from dir, so that the plugin's own node_modules decide which copy is used.
func resolveModule(dir, module string) (string, error) {
	cmd := exec.Command("node", "-e", "process.stdout.write(require.resolve(process.argv[1]))", module)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", err
	}
	return string(out), nil
}

type streamWriter struct{ send func([]byte) error }

func (w streamWriter) Write(b []byte) (int, error) {
	// gRPC may hold on to the slice after Send returns, so send a copy.
	if err := w.send(append([]byte(nil), b...)); err != nil {
		return 0, err
	}
	return len(b), nil
}
