// Signal handlers, a reader of stdin and a watch on the parent belong only to
// the process whose lifetime they decide: Pulumi's dynamic provider host, or
// the resource plugin's own process.
// This binds that process's own sources of cancellation (signals, stdin,
// parent, timers, exit) to the cancellation rules of watchCancel, there and
// nowhere else (not in tests, not in a program that loads the package).
import { fstatSync } from "node:fs";
import { watchCancel, type CancelSources, type CancelWatch } from "./cancel-watch";

/** The real process's sources. */
const processSources: CancelSources = {
  onSignal(sig, handler) {
    process.on(sig, handler);
    return () => process.off(sig, handler);
  },
  onStdinEnd(handler) {
    // Only a pipe means "the engine's end": a terminal or /dev/null says nothing.
    let isPipe: boolean;
    try {
      isPipe = fstatSync(0).isFIFO();
    } catch {
      return undefined;
    }
    if (!isPipe) return undefined;
    const stdin = process.stdin;
    stdin.on("end", handler);
    stdin.on("error", handler);
    stdin.resume();
    // Reading stdin must not keep the process alive by itself.
    (stdin as unknown as { unref?: () => void }).unref?.();
    return () => {
      stdin.off("end", handler);
      stdin.off("error", handler);
    };
  },
  ppid: () => process.ppid,
  every(ms, f) {
    const timer = setInterval(f, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
  after(ms, f) {
    setTimeout(f, ms).unref();
  },
  exit(how) {
    if (how === "parent gone") process.exit(1);
    // The default disposition: die of the signal, as the engine expects. Should
    // another listener of that signal keep the process alive, exit as a shell
    // reports a death by that signal.
    setTimeout(() => process.exit(how === "SIGINT" ? 130 : 143), 200).unref();
    process.kill(process.pid, how);
  },
};

/**
 * The watch of this process when it is Pulumi's dynamic provider host, and
 * none elsewhere (tests, a program loading the package): signal handlers
 * belong only to the process whose lifetime they decide. Called once, by the
 * one who makes the process's provider core.
 */
export function dynamicHostCancelWatch(argv = process.argv): CancelWatch | undefined {
  const host = /[\\/]cmd[\\/]dynamic-provider([\\/]index\.js)?$/.test(argv[1] ?? "");
  return host ? watchCancel(processSources) : undefined;
}

/**
 * The resource plugin's process is the plugin's own: its main binds the watch
 * there, before the first operation, and the engine's Cancel fires it.
 */
export function pluginCancelWatch(): CancelWatch {
  return watchCancel(processSources);
}
