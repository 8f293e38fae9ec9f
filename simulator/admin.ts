// Admin endpoints under /_sim (outside /api, so they never collide with the
// server's routes), for tests that drive a simulator in another process:
//
//   GET    /_sim/state           {vms, disabled, sshKey, images, allowIps, faults, stats, installs, powerTimeline}
//   GET    /_sim/timeline        [{vmid, name, status, simMs, wallMs}...] every power change, oldest first
//   GET    /_sim/faults          [rule...]
//   POST   /_sim/faults          rule or [rule...]        -> {"ids":[...]}
//   DELETE /_sim/faults          clear all                -> {"cleared":N}
//   DELETE /_sim/faults/:id      remove one               -> {"removed":true} / 404
//   POST   /_sim/vms             VM seed (created behind the server's back) -> VM
//   PATCH  /_sim/vms/:vmid       VM patch (drift); POST works too          -> VM
//   DELETE /_sim/vms/:vmid       remove a VM behind the server's back      -> {"removed":true} / 404
//   POST   /_sim/settings        {allowIps?, disabled?, sshKey?, imageCache?, storages?, ipsInUse?, speed?}
//   GET    /_sim/idle            answers once no server-side work is left -> {"idle":true}
//
// Bad input answers 400 {"error": "..."}; everything else is JSON 200.
import type { ServerResponse } from "node:http";
import type { Controls } from "./controls";

function reply(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(value));
}

function parse(body: string): unknown {
  if (body.trim() === "") return {};
  return JSON.parse(body) as unknown;
}

export async function handleAdmin(
  controls: Controls,
  method: string,
  path: string,
  body: string,
  res: ServerResponse,
): Promise<void> {
  const parts = path
    .split("/")
    .filter((p) => p !== "")
    .slice(1);
  const [what, arg] = parts;
  try {
    if (what === "state" && method === "GET") return reply(res, 200, controls.state());
    if (what === "timeline" && arg === undefined && method === "GET") return reply(res, 200, controls.powerTimeline());
    if (what === "idle" && method === "GET") {
      await controls.idle();
      return reply(res, 200, { idle: true });
    }
    if (what === "faults") {
      if (arg === undefined && method === "GET") return reply(res, 200, controls.faults());
      if (arg === undefined && method === "POST") {
        const input = parse(body);
        const rules = Array.isArray(input) ? input : [input];
        return reply(res, 200, { ids: rules.map((r) => controls.addFault(r as never)) });
      }
      if (arg === undefined && method === "DELETE") return reply(res, 200, { cleared: controls.clearFaults() });
      if (arg !== undefined && method === "DELETE") {
        const removed = controls.removeFault(decodeURIComponent(arg));
        return reply(res, removed ? 200 : 404, removed ? { removed } : { error: `no fault rule "${arg}"` });
      }
    }
    if (what === "vms") {
      if (arg === undefined && method === "POST") return reply(res, 200, controls.addVm(parse(body) as never));
      const vmid = Number(arg);
      if (arg !== undefined && Number.isInteger(vmid)) {
        if (method === "PATCH" || method === "POST")
          return reply(res, 200, controls.mutateVm(vmid, parse(body) as never));
        if (method === "DELETE") {
          const removed = controls.removeVm(vmid);
          return reply(res, removed ? 200 : 404, removed ? { removed } : { error: `VM ${vmid} does not exist` });
        }
      }
    }
    if (what === "settings" && method === "POST") {
      controls.settings(parse(body) as never);
      return reply(res, 200, controls.state());
    }
    reply(res, 404, { error: `no admin endpoint ${method} ${path}` });
  } catch (err) {
    reply(res, 400, { error: err instanceof Error ? err.message : String(err) });
  }
}
