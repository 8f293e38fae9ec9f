// How messages name things: a VM, a duration, and how a stream was lost.
// Shared by every part of the lifecycle that reports or fails, so each reads
// the same in every line.
import type { FailureShape } from "../../client";

/** "web-101 (101)" or "101": how messages name a VM. */
export function vmLabel(vmid: number, vmName?: string): string {
  return vmName && vmName !== String(vmid) ? `${vmName} (${vmid})` : String(vmid);
}

/** A duration for messages: "800 ms", "1.5 s", "45 s", "12.5 min". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = ms / 1000;
  if (s < 10) return `${Math.round(s * 10) / 10} s`;
  if (s < 120) return `${Math.round(s)} s`;
  return `${Math.round(s / 6) / 10} min`;
}

/** How a stream was lost, in words (for the shapes after which the server may carry on). */
export const LOSS_TEXT: Partial<Record<FailureShape, string>> = {
  "connection-lost": "the connection ended before the stream closed",
  "idle-timeout": "the stream went silent for longer than the idle timeout",
  "overall-timeout": "the operation took longer than the stream's overall timeout",
  "no-completion": "the stream closed without the operation's completion mark",
  "stream-error": "the stream reported its own failure",
};
