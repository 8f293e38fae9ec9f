// GET /api/vm/list in its real shape: gin.H marshals with sorted keys, so the
// body is {"cluster":[...],"count":N,"data":[...],"list":[...]}; memory,
// memory_used and disk are whole GiB, truncated; node entries are percentages
// of the node's capacity summed over its VMs.
import type { SimCore } from "./core";
import { goJson } from "./gojson";
import { GIB, MIB } from "./state";

interface ListedVm {
  vmid: number;
  name: string;
  os: string;
  running: boolean;
  node: string;
  cpu: number;
  disk: number;
  memory: number;
  memory_used: number;
}

interface ListedNode {
  node: string;
  max_cpu: number;
  max_memory: number;
  cpu: number;
  memory: number;
  memory_used: number;
  disk: number;
  running: boolean;
}

/** IncludeVM: ?disable=1 lists stopped VMs, ?disable=0 running ones, disabled entries never. */
function included(running: boolean, os: string, disable: string): boolean {
  if (disable === "1") return !running && os !== "-";
  if (disable === "0") return running && os !== "-";
  return true;
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

/** The body of a 200 answer; an empty body when Go's encoder would have refused (NaN). */
export function buildList(core: SimCore, disable: string): string {
  const { store, cfg } = core;
  // GetVMMap: byte values as pvesh reports them, disabled entries on top.
  const byId = new Map<number, ListedVm>();
  for (const vm of store.vms.values()) {
    byId.set(vm.vmid, {
      vmid: vm.vmid,
      name: vm.name,
      os: vm.os,
      running: vm.status === "running",
      node: vm.node,
      cpu: vm.cpu,
      disk: vm.diskBytes,
      memory: vm.memoryMb * MIB,
      memory_used: Math.floor(store.memoryUsedMb(vm) * MIB),
    });
  }
  for (const d of store.disabled ?? []) {
    byId.set(d.vmid, {
      vmid: d.vmid,
      name: d.name,
      os: "-",
      running: true,
      node: "-",
      cpu: 0,
      disk: 0,
      memory: 0,
      memory_used: 0,
    });
  }

  const nodes = new Map<string, ListedNode>();
  for (const n of cfg.nodes) {
    nodes.set(n.name, {
      node: n.name,
      max_cpu: n.maxCpu,
      max_memory: n.maxMemoryMb * MIB,
      cpu: 0,
      memory: 0,
      memory_used: 0,
      disk: n.diskGb * GIB,
      running: n.online,
    });
  }

  const list = [...byId.values()].filter((vm) => included(vm.running, vm.os, disable));
  for (const vm of list) {
    if (vm.node === "-" || vm.node === "") continue;
    let n = nodes.get(vm.node);
    if (!n) {
      // A node pvesh did not list: a zero entry, whose percentages divide by zero.
      n = { node: "", max_cpu: 0, max_memory: 0, cpu: 0, memory: 0, memory_used: 0, disk: 0, running: false };
      nodes.set(vm.node, n);
    }
    n.cpu += vm.cpu;
    n.memory += vm.memory;
    n.memory_used += vm.memory_used;
    vm.memory = Math.trunc(vm.memory / GIB);
    vm.memory_used = Math.trunc(vm.memory_used / GIB);
    vm.disk = Math.trunc(vm.disk / GIB);
  }
  list.sort((a, b) => a.vmid - b.vmid);

  const cluster = [...nodes.values()]
    .map((n) => ({
      ...n,
      cpu: Math.round((n.cpu / n.max_cpu) * 10000) / 100,
      memory: Math.round((n.memory / n.max_memory) * 10000) / 100,
      memory_used: Math.round((n.memory_used / n.max_memory) * 10000) / 100,
      max_cpu: Math.round(n.max_cpu),
      max_memory: round2(n.max_memory / GIB),
      disk: round2(n.disk / GIB),
    }))
    .sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));

  return encoded(core, { cluster, count: list.length, data: list });
}

/** gin.H's sorted keys; `data` and `list` are one slice, encoded once. */
function goBody(listing: { cluster: object[]; count: number; data: ListedVm[] }): string {
  const vms = goJson(listing.data);
  return `{"cluster":${goJson(listing.cluster)},"count":${listing.count},"data":${vms},"list":${vms}}`;
}

/**
 * The last body each simulator encoded, by the listing it encodes (`data`
 * only: `list` is the same slice). Go-style encoding (gojson.ts) is the
 * costly part of a list, and a fleet's creates list the same unchanged server
 * again and again; the built-in encoder makes the key (the listing's numbers
 * are never null, so its NaN-as-null cannot collide with another listing).
 */
const lastBody = new WeakMap<SimCore, { key: string; body: string }>();

function encoded(core: SimCore, listing: { cluster: object[]; count: number; data: ListedVm[] }): string {
  const key = JSON.stringify(listing);
  const last = lastBody.get(core);
  if (last?.key === key) return last.body;
  let body: string;
  try {
    body = goBody(listing);
  } catch {
    // gin's render error: status and content type already set, nothing written.
    body = "";
  }
  lastBody.set(core, { key, body });
  return body;
}
