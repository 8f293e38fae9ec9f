// Power-state chores shared by create, update and delete: the server refuses
// most calls unless the VM is in the right state, so every change is
// confirmed by watching the VM (observe) until it says so.
//
// Shutdown: the real server's `shutdown` answers only once the guest is off
// (`qm shutdown` waits; minutes for a real guest), while older servers or a
// proxy may answer at once and the VM stops later. Both are served by one
// rule: the request may take up to shutdownTimeoutMs (a progress line every
// ~30 s meanwhile), then the VM is watched for the rest of that time; only
// when the time is up is the request abandoned and the VM stopped hard. A
// shutdown the server itself reports as failed (its 500 `failed to shutdown
// VM: ...`, qm's exit status) is over: the hard stop follows at once. Every
// hard stop here is a fallback the user may forbid (allowHardStop false):
// then the shutdown fails instead, saying why.
import type { GoPveQemuApi } from "../../client";
import { HttpStatusError } from "../../client";
import { clockOf, timingOf, duration, poll, waitFor, errorText, safeCause } from "../core";
import type { LifecycleContext, Redactor } from "../core";
import { CODES, LifecycleError } from "../model";
import { STOPPED, observe, powerWord } from "../observe";

/** How often a long wait says that it is still waiting. */
export const PROGRESS_EVERY_MS = 30_000;
/** The client's own timeout for shutdown sits this much past ours, so ours (with its clear message) fires first. */
const CLIENT_MARGIN_MS = 5_000;

/**
 * Watches the VM until its power word is `want` or the time is up. Errors in
 * between (a busy server) are tolerated until the deadline; a cancellation is
 * rethrown. Returns the last word seen.
 */
async function waitForStatus(
  client: GoPveQemuApi,
  vmid: number,
  want: string,
  timeoutMs: number,
  ctx: LifecycleContext,
): Promise<{ reached: boolean; last?: string }> {
  const result = await poll(ctx, {
    probe: async (signal) => powerWord(await observe(client, vmid, {}, signal)),
    done: (word) => word === want,
    timeoutMs,
  });
  return result.reached ? { reached: true, last: result.value } : { reached: false, last: result.last };
}

/** Watches the list until the VMID is gone. */
export async function waitGone(
  client: GoPveQemuApi,
  vmid: number,
  timeoutMs: number,
  ctx: LifecycleContext,
): Promise<boolean> {
  const result = await poll(ctx, {
    probe: (signal) => observe(client, vmid, { status: false }, signal),
    done: (seen) => !seen.listed,
    timeoutMs,
  });
  return result.reached;
}

/** The server said the VM is not in the state the call needs ("VM is not running" / "VM is running"). */
export function isPowerRefusal(err: unknown, running: boolean): boolean {
  if (!(err instanceof HttpStatusError)) return false;
  return running ? /VM is running/i.test(err.serverMessage) : /VM is not running/i.test(err.serverMessage);
}

/** How the shutdown request ended. */
type Asked =
  | { kind: "answered" }
  | { kind: "already" }
  | { kind: "no-answer" }
  /** the server's own answer that its `qm shutdown` failed: the command is over, the VM did not stop */
  | { kind: "qm-failed"; err: HttpStatusError }
  /** failed in a way that says nothing sure about the VM (a proxy's 5xx, connection lost) */
  | { kind: "failed"; err: unknown };

/** The server's text when its `qm shutdown` returned an error (handler Shutdown: 500 `failed to shutdown VM: ...`). */
const QM_SHUTDOWN_FAILED = /^failed to shutdown VM: /;

/**
 * Graceful shutdown, waiting until the VM is stopped; after shutdownTimeoutMs
 * a hard stop. A VM that is already stopped is fine.
 */
export async function shutdownAndWait(
  client: GoPveQemuApi,
  vmid: number,
  label: string,
  ctx: LifecycleContext,
  redact: Redactor,
): Promise<"graceful" | "forced" | "already"> {
  const { shutdownTimeoutMs } = timingOf(ctx);
  const clock = clockOf(ctx);
  const start = clock.now();
  const asked = await askShutdown(client, vmid, label, ctx, redact);
  if (asked.kind === "already") return "already";
  let why: string;
  if (asked.kind === "qm-failed") {
    const said = redact(asked.err.serverMessage);
    return stopInstead(client, vmid, label, ctx, redact, `the server's qm shutdown failed (${said})`);
  }
  if (asked.kind === "no-answer") {
    why = "the shutdown request got no answer";
  } else {
    // Answered at once (older servers, proxies), or failed without a sure answer: watch the rest of the time.
    if (asked.kind === "failed") {
      ctx.reporter.warn(
        `VM ${label}: the shutdown request failed (${errorText(asked.err, redact)}); watching whether the VM stops anyway`,
      );
    }
    const left = Math.max(0, shutdownTimeoutMs - (clock.now() - start));
    const waited = await waitForStatus(client, vmid, STOPPED, left, ctx);
    if (waited.reached) return "graceful";
    why = `status says ${waited.last ?? "nothing readable"}`;
  }
  return stopInstead(
    client,
    vmid,
    label,
    ctx,
    redact,
    `it did not shut down within ${duration(shutdownTimeoutMs)} (${why})`,
  );
}

/** The graceful shutdown did not work: stop hard, unless the user forbade it. */
async function stopInstead(
  client: GoPveQemuApi,
  vmid: number,
  label: string,
  ctx: LifecycleContext,
  redact: Redactor,
  why: string,
): Promise<"forced"> {
  if (ctx.allowHardStop === false) {
    throw new LifecycleError(
      `could not shut down VM ${label}: ${why}; it is not stopped hard because goPveQemu:allowHardStop is false: ` +
        "shut the guest down from inside, or allow the hard stop, then run `pulumi up` again",
      { code: CODES.shutdownFailed },
    );
  }
  ctx.reporter.warn(`VM ${label}: ${why}; stopping it hard`);
  await stopAndWait(client, vmid, label, ctx, redact);
  return "forced";
}

/** Sends `shutdown` and waits for its answer up to shutdownTimeoutMs, saying every ~30 s that it waits. */
async function askShutdown(
  client: GoPveQemuApi,
  vmid: number,
  label: string,
  ctx: LifecycleContext,
  redact: Redactor,
): Promise<Asked> {
  const { shutdownTimeoutMs } = timingOf(ctx);
  const giveUp = new AbortController();
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, giveUp.signal]) : giveUp.signal;
  const request = client.shutdown(vmid, { signal, timeoutMs: shutdownTimeoutMs + CLIENT_MARGIN_MS });
  try {
    const waited = await waitFor(ctx, request, {
      timeoutMs: shutdownTimeoutMs,
      tickMs: PROGRESS_EVERY_MS,
      onTick: (ms) => ctx.reporter.info(`waiting for VM ${label} to shut down (${duration(ms)})`),
    });
    if (waited.settled) return { kind: "answered" };
    giveUp.abort(); // the server's qm shutdown may carry on: the hard stop that follows wins either way
    return { kind: "no-answer" };
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    if (isPowerRefusal(err, false)) return { kind: "already" };
    if (err instanceof HttpStatusError && err.status < 500) {
      // A definite refusal (IP not allowed, disabled VM, bad request): stopping hard would be refused too.
      throw new LifecycleError(`could not shut down VM ${label}: ${errorText(err, redact)}`, {
        cause: safeCause(err, redact),
      });
    }
    if (err instanceof HttpStatusError && err.status === 500 && QM_SHUTDOWN_FAILED.test(err.serverMessage)) {
      return { kind: "qm-failed", err };
    }
    return { kind: "failed", err };
  } finally {
    giveUp.abort();
  }
}

/**
 * Hard stop, then wait until stopped. A stop the server fails (5xx, no
 * answer) is asked again until stopTimeoutMs: right after an abandoned
 * shutdown the server's `qm shutdown` may still hold the VM's lock, and the
 * stop fails with a lock timeout until it lets go. A 4xx is final.
 */
export async function stopAndWait(
  client: GoPveQemuApi,
  vmid: number,
  label: string,
  ctx: LifecycleContext,
  redact: Redactor,
): Promise<void> {
  const { stopTimeoutMs } = timingOf(ctx);
  const fail = (err: unknown): LifecycleError =>
    new LifecycleError(`could not stop VM ${label}: ${errorText(err, redact)}`, { cause: safeCause(err, redact) });
  const sent = await poll(ctx, {
    probe: (signal) =>
      client.stop(vmid, { signal, timeoutMs: stopTimeoutMs }).catch((err: unknown) => {
        if (isPowerRefusal(err, false)) return; // stopped meanwhile
        throw err;
      }),
    done: () => true,
    timeoutMs: stopTimeoutMs,
    fatal: (err) => err instanceof HttpStatusError && err.status < 500,
  }).catch((err: unknown) => {
    throw ctx.signal?.aborted ? err : fail(err);
  });
  if (!sent.reached) throw fail(sent.lastError);
  const waited = await waitForStatus(client, vmid, STOPPED, stopTimeoutMs, ctx);
  if (!waited.reached) {
    throw new LifecycleError(
      `VM ${label} was stopped but status still says ${waited.last ?? "nothing readable"} after ${duration(stopTimeoutMs)}`,
    );
  }
}
