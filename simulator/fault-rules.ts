// The fault rules a test or an admin call arms on the simulator, and the
// operations and steps they name: one zod schema, so that a rule naming a
// step the operation does not have fails when it is added, not silently never.
import { z } from "zod";

/** The 13 API operations, named after the go-pve-qemu handlers. */
export const OPS = [
  "health",
  "install",
  "list",
  "status",
  "start",
  "stop",
  "shutdown",
  "reboot",
  "destroy",
  "setCpu",
  "setMemory",
  "setDisk",
  "setNode",
] as const;
const OpSchema = z.enum(OPS);
export type Op = z.infer<typeof OpSchema>;

/**
 * Named points of each operation where a fault can strike. For the SSE
 * operations these follow the step names the server streams (the part after
 * `>`), plus `begin` (before the first event) and `close` (before
 * `event: close`). `starting VM` and `waiting after reboot` inside install
 * have no step name of their own on the wire; they are the `qm start` call
 * and the SSH wait that follows `[+] VM rebooting`.
 */
export const STEPS: Readonly<Record<Op, readonly string[]>> = {
  install: [
    "begin",
    "checking VMID",
    "assigning IP",
    "validating CPU and RAM",
    "validating disk size",
    "setting default config values",
    "checking storage pool",
    "getting OS image",
    "validating OS image URL",
    "downloading OS image",
    "using OS image",
    "checking SSH key",
    "creating SSH key",
    "creating VM",
    "importing disk image",
    "initializing configuration",
    "migrating VM",
    "starting VM",
    "waiting for ready",
    "SSH initialization",
    "rebooting VM",
    "waiting after reboot",
    "finalizing",
    "close",
  ],
  start: ["starting VM", "waiting for SSH", "finalizing", "close"],
  reboot: ["rebooting VM", "waiting for SSH", "finalizing", "close"],
  setNode: ["migrating", "close"],
  list: ["vm map", "node map"],
  health: ["health"],
  status: ["status"],
  stop: ["stop"],
  shutdown: ["shutdown"],
  destroy: ["destroy"],
  setCpu: ["setCpu"],
  setMemory: ["setMemory"],
  setDisk: ["setDisk"],
};

/** `VM creation > creating VM` and `creating VM` name the same step. */
export function normalizeStep(step: string): string {
  const at = step.lastIndexOf(" > ");
  return at === -1 ? step.trim() : step.slice(at + 3).trim();
}

/** The operations that answer with an event stream. */
const SSE_OPS: readonly Op[] = ["install", "start", "reboot", "setNode"];

export const FAULT_KINDS = [
  "fail",
  "drop",
  "stall",
  "http",
  "gateway",
  "hang",
  "delay",
  "error-frame",
  "garble",
  "cut",
  "late",
  "lose",
  "reorder",
] as const;

/**
 * The ways the real server's chunked framing breaks (see the recordings): the
 * tail of a frame with no chunk header (`fragment`), a frame written a second
 * time outside the framing (`duplicate`), a chunk that lacks the LF of its
 * closing CRLF and is followed by the frame again (`crlf`), and a break that
 * the client's parser notices only when the server ends the response
 * (`hidden`: measured on the real server with a chatty init script; no frame
 * after it reaches the client, the flow carries on, and the response's end
 * is a broken connection).
 */
export const GARBLE_VARIANTS = ["fragment", "duplicate", "crlf", "hidden"] as const;
export type GarbleVariant = (typeof GARBLE_VARIANTS)[number];

/** What follows a named error frame: `event: close` and the end, the end alone, or the rest of the stream. */
export const FRAME_THEN = ["close", "end", "continue"] as const;
/** What the server-side operation does after a named error frame. */
export const FRAME_FLOW = ["stops", "continues"] as const;

/** Kinds answered in front of the server, before any step: their `step` does not matter. */
export const FRONT_KINDS: readonly string[] = ["http", "gateway", "hang"];

const oneLine = (what: string) => z.string().regex(/^[^\r\n]*$/, `${what} must be one line (no CR or LF)`);

export const FaultRuleSchema = z
  .strictObject({
    /** Given or generated; used to remove the rule. */
    id: z.string().min(1).optional(),
    /** Operation(s) the rule applies to; all when omitted. */
    op: z.union([OpSchema, z.array(OpSchema).min(1)]).optional(),
    /** Step (see STEPS); the operation's first step when omitted. */
    step: z.string().min(1).optional(),
    /** Only for this VMID (install: the assigned or requested VMID). */
    vmid: z.number().int().optional(),
    /** Only for this name: the install's requested name, or a VM's real or requested name. */
    name: z.string().optional(),
    /**
     * fail: the server-side action of the step fails, and the server answers
     *       exactly as its code does for that failure;
     * drop: the connection is destroyed when the step is reached, the
     *       server-side flow carries on unheard;
     * stall: nothing more is written, the connection stays open (silence
     *       longer than any step), the flow carries on unheard;
     * http: the request is answered at once with status/body/contentType and
     *       nothing is done (a proxy in front of the server, say);
     * gateway: the request reaches the server and runs there unheard; after
     *       `ms` the client gets status/body/contentType instead (a gateway
     *       that buffers whole responses, then times out or fails);
     * hang: the request is read and never answered, nothing is done; the
     *       connection stays open until the client leaves (a black hole);
     * delay: `ms` more simulated milliseconds of silence at the step;
     * error-frame: (SSE operations) `event: <event>` / `data: <body>` is
     *       written at the step, then `then`; the operation `flow`s on or
     *       stops there (the frames other SSE services and proxies send).
     *
     * Stream corruption, as the real server's concurrent writers produce it
     * (SSE operations; the flow always carries on server-side):
     * garble: the first frame written from the step on is followed by bytes
     *       outside the chunked framing (`variant`); fragment and duplicate
     *       then write nothing more and never end the response;
     * cut: half of that frame is written, then the socket is destroyed;
     * late: that frame is held back and written after `event: close`;
     * lose: `lines` frames from the step on are never written;
     * reorder: `lines` frames from the step on are held back and written
     *       after the frame that follows them (a later line jumps ahead).
     */
    kind: z.enum(FAULT_KINDS),
    /** fail: the underlying error text (what follows the server's own prefix). */
    detail: z.string().optional(),
    /** fail: output lines streamed before the failure (migration, SSH initialization). */
    output: z.array(z.string()).optional(),
    /** http: status code (default 502); gateway: (default 504). */
    status: z.number().int().min(100).max(599).optional(),
    /**
     * http: body (default empty); gateway: (default `{"message":"Endpoint
     * request timed out"}`); error-frame: the data line (default
     * `{"message":"operation failed"}`).
     */
    body: z.string().optional(),
    /** http: content type (default text/plain; charset=utf-8); gateway: (default application/json). */
    contentType: z.string().optional(),
    /**
     * Simulated milliseconds (scaled by speed like every duration). delay: the
     * silence; gateway: when the gateway answers (default 29000); fail on
     * shutdown: how much later than at once the failure is answered (a guest
     * that ignores the power button until qm's own timeout).
     */
    ms: z.number().nonnegative().optional(),
    /** error-frame: the frame's event name (default "error"). */
    event: oneLine("event").min(1).optional(),
    /** error-frame: what follows the frame (default close). */
    then: z.enum(FRAME_THEN).optional(),
    /** error-frame: the operation stops there (default for event "error") or carries on (default otherwise). */
    flow: z.enum(FRAME_FLOW).optional(),
    /** garble: how the framing breaks (default fragment). */
    variant: z.enum(GARBLE_VARIANTS).optional(),
    /** lose, reorder: how many frames (default 1). */
    lines: z.number().int().positive().optional(),
    /** garble, cut, late, lose, reorder: frames written untouched from the step on before it strikes. */
    skip: z.number().int().nonnegative().optional(),
    /** How many times the rule fires before it retires itself; forever when omitted. */
    times: z.number().int().positive().optional(),
    /**
     * How many matching calls the rule lets through untouched before it
     * fires (default 0): "the 5th start fails" is `pass: 4`, whichever VM
     * comes 5th.
     */
    pass: z.number().int().nonnegative().optional(),
  })
  .superRefine((rule, ctx) => {
    const ops: readonly Op[] = rule.op === undefined ? OPS : Array.isArray(rule.op) ? rule.op : [rule.op];
    const issue = (path: string, message: string): void => ctx.addIssue({ code: "custom", path: [path], message });
    if (rule.step !== undefined) {
      const step = normalizeStep(rule.step);
      if (!ops.some((op) => STEPS[op].includes(step))) {
        const known = [...new Set(ops.flatMap((op) => STEPS[op]))].join(", ");
        issue("step", `unknown step "${rule.step}"; known: ${known}`);
      }
    }
    if (rule.kind !== "error-frame") {
      for (const key of ["event", "then", "flow"] as const) {
        if (rule[key] !== undefined) issue(key, `"${key}" applies only to kind "error-frame"`);
      }
    } else {
      if (!ops.some((op) => SSE_OPS.includes(op))) {
        issue("op", `kind "error-frame" applies only to the SSE operations (${SSE_OPS.join(", ")})`);
      }
      if (rule.body !== undefined && /[\r\n]/.test(rule.body)) issue("body", "an error frame's body must be one line");
      if ((rule.then ?? "close") === "continue" && frameFlow(rule) === "stops") {
        issue("then", 'then "continue" needs flow "continues": a stopped operation has nothing left to stream');
      }
    }
    // ms means something only where something waits: reject it elsewhere rather than ignore it.
    const shutdownOnly = ops.length === 1 && ops[0] === "shutdown";
    if (rule.ms !== undefined && rule.kind !== "delay" && rule.kind !== "gateway") {
      if (rule.kind !== "fail" || !shutdownOnly) {
        issue("ms", '"ms" applies to kinds "delay" and "gateway", and to "fail" with op "shutdown"');
      }
    }
  });
export type FaultRule = z.infer<typeof FaultRuleSchema>;

/** An error frame's effect on the operation: `event: error` ends it, any other event lets it go on. */
export function frameFlow(rule: Pick<FaultRule, "event" | "flow">): (typeof FRAME_FLOW)[number] {
  return rule.flow ?? ((rule.event ?? "error") === "error" ? "stops" : "continues");
}
