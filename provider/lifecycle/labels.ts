// How messages name things: a VM, and a duration. Shared by every part of the
// lifecycle that reports or fails, so a VM reads the same in every line.

/** "web-101 (101)" or "101": how messages name a VM. */
export function vmLabel(vmid: number, vmName?: string): string {
  return vmName && vmName !== String(vmid) ? `${vmName} (${vmid})` : String(vmid);
}

/** A duration for messages: "1.5s", "800ms". */
export function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10}s` : `${ms}ms`;
}
