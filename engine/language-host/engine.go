package main

// The engine ends this host with SIGINT when it is done with it. An engine
// killed with SIGKILL (a timeout, a killed CI runner) never does, and the host
// would serve on forever with init as its parent. So the host watches the
// engine's address with the SDK's rpcutil.Healthcheck, as Pulumi's own plugins
// do, and leaves once the engine stops answering, ending the program it
// started first: a program whose engine is gone can only fail.

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
)

const (
	// How often the engine is asked whether it is alive. One loopback health
	// RPC a second costs nothing and puts the host's exit within a second or
	// two of the engine's death (Pulumi's own plugins ask every five minutes,
	// and so may outlive a killed engine that long). A check has no deadline:
	// an engine that is busy and answers late is alive; only an engine that
	// cannot be reached at all fails it.
	engineCheckInterval = time.Second
	// How long the program has to end after SIGTERM before it is killed.
	programGrace = 2 * time.Second
	// Past this, after the engine is gone, the host exits whatever is still
	// pending: nothing it could still do reaches anyone.
	exitBound = programGrace + 3*time.Second
)

// engineWatch knows whether the engine that started the host is still there.
type engineWatch struct {
	once   sync.Once
	ctx    context.Context // done once the engine is gone
	cancel context.CancelFunc
}

func newEngineWatch() *engineWatch {
	ctx, cancel := context.WithCancel(context.Background())
	return &engineWatch{ctx: ctx, cancel: cancel}
}

// watch starts watching the engine at addr. The address comes on the command
// line and again in Handshake; the first one known is watched.
func (w *engineWatch) watch(addr string) error {
	var err error
	w.once.Do(func() { err = rpcutil.Healthcheck(w.ctx, addr, engineCheckInterval, w.cancel) })
	return err
}

// isGone tells whether the engine is gone.
func (w *engineWatch) isGone() bool { return w.ctx.Err() != nil }

// leaveWithEngine makes the host leave once the engine is gone: stop closes
// the server's cancel channel, and the graceful stop waits for Run, which
// ends once its program has; serve then calls leave. If something keeps the
// server past exitBound, the host leaves all the same. Nothing is written on
// the way out: stdout and stderr are pipes to the dead engine, and a write to
// them would end the host with SIGPIPE before it ended the program.
func (w *engineWatch) leaveWithEngine(stop func()) {
	go func() {
		<-w.ctx.Done()
		stop()
		time.AfterFunc(exitBound, w.leave)
	}()
}

// leave ends the host's process group, when the host leads one (the engine
// starts every plugin in a group of its own). The group holds the host, the
// program and whatever the program started, which the engine would have ended
// with the group on a normal close.
func (w *engineWatch) leave() {
	if syscall.Getpgrp() == os.Getpid() {
		_ = syscall.Kill(0, syscall.SIGKILL)
	}
	os.Exit(1)
}

// programCommand is the program's command. It ends with the Run request (the
// engine hung up: killed at once, as it always was) or with the engine (a
// SIGTERM, then SIGKILL after programGrace). release frees the watch of the
// engine once the program has ended.
func (w *engineWatch) programCommand(ctx context.Context, name string, args ...string) (cmd *exec.Cmd, release func()) {
	runCtx, stop := context.WithCancel(ctx)
	unwatch := context.AfterFunc(w.ctx, stop)
	cmd = exec.CommandContext(runCtx, name, args...)
	cmd.Cancel = func() error {
		if w.isGone() {
			return cmd.Process.Signal(syscall.SIGTERM)
		}
		return cmd.Process.Kill()
	}
	// After Cancel, Wait gives the program this long, then kills it.
	cmd.WaitDelay = programGrace
	return cmd, func() { unwatch(); stop() }
}
