// Resolving a stack's pending Vm creates before `pulumi up`, and clearing the
// resolved ones after it, through the Automation API and the stack's own
// `pulumi` (the same the pipeline runs). Pulumi's own way to finish a pending
// create, `pulumi refresh --import-pending-creates`, turns it into a pending
// import that the engine then drops (v3.276), so the resource never reaches
// state; this does what that means to do, on evidence (planRecovery): the VM
// the create began is written into this machine's install journal, and the
// `up` that follows takes it over as its own interrupted create.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import type { Stack } from "@pulumi/pulumi/automation";
import { GoPveQemuClient } from "../client";
import type { VmEntry } from "../client";
import { defaultJournalDir, fileJournal } from "../lifecycle";
import type { InstallJournal } from "../lifecycle";
import { readStackRecord } from "./pending";
import type { PendingVm } from "./pending";
import { planRecovery } from "./recover-plan";
import type { Resolution } from "./recover-plan";
import { DYNAMIC_MODULE, PACKAGE } from "../tokens";

const run = promisify(execFile);

export interface RecoverOptions {
  /** URN -> the VMID that is this resource's VM (a name the user gave, the server picking the VMID) */
  adopt?: Record<string, number>;
  /** URNs whose pending create made no VM */
  discard?: string[];
  /** this machine's install journal (default: the provider's) */
  journal?: InstallJournal;
}

export interface RecoverReport {
  resolutions: Resolution[];
  /** one line per pending create, for people */
  lines: string[];
  /** some pending create needs the user's word (--adopt or --discard) before `up` */
  undecided: boolean;
}

/** Before `up`: each pending Vm create of the stack, resolved on evidence. */
export async function recoverPendingCreates(stack: Stack, opts: RecoverOptions = {}): Promise<RecoverReport> {
  const record = readStackRecord(await stack.exportStack());
  const defaults = await connectionDefaults(stack);
  const journal = opts.journal ?? fileJournal(defaultJournalDir(process.env));
  const decisions = { adopt: new Map(Object.entries(opts.adopt ?? {})), discard: new Set(opts.discard ?? []) };
  const resolutions: Resolution[] = [];
  for (const p of record.pending) {
    const endpoint = p.endpoint ?? defaults.endpoint;
    const vms = endpoint === undefined ? [] : await listVms(endpoint, defaults.token);
    const r = planRecovery(p, vms, { urns: record.inState, vmids: record.vmidsInState }, decisions);
    if (r.kind === "journal" && p.identity !== undefined && endpoint !== undefined) {
      await journal.put({
        identity: p.identity,
        urn: p.urn,
        endpoint,
        name: r.name,
        vmid: r.vmid,
        startedAt: Date.now(),
        os: p.os ?? "",
      });
    }
    resolutions.push(r);
  }
  const discarded = resolutions.filter((r) => r.kind === "discard").map((r) => r.urn);
  if (discarded.length > 0) await dropPendingCreates(stack, new Set(discarded));
  return {
    resolutions,
    lines: resolutions.map((r) =>
      lineOf(
        r,
        record.pending.find((p) => p.urn === r.urn)!,
        stack.name,
      ),
    ),
    undecided: resolutions.some((r) => r.kind === "undecided"),
  };
}

/**
 * `up` with its interrupted creates resolved first, and the ones it recorded
 * cleared after: what a pipeline runs, so that a deployment killed mid-install
 * needs no one. A pending create that needs the user's word stops it before
 * anything is installed twice, saying what to run.
 */
export async function upWithRecovery(
  stack: Stack,
  upOptions?: Parameters<Stack["up"]>[0],
  opts: RecoverOptions = {},
): Promise<Awaited<ReturnType<Stack["up"]>>> {
  const report = await recoverPendingCreates(stack, opts);
  if (report.undecided) throw new Error(`interrupted creates need a decision before up:\n${report.lines.join("\n")}`);
  const result = await stack.up(upOptions);
  await clearResolvedPendingCreates(stack);
  return result;
}

/** After `up`: the pending creates whose resource is now in state are stale; they go. */
export async function clearResolvedPendingCreates(stack: Stack): Promise<string[]> {
  const record = readStackRecord(await stack.exportStack());
  const stale = new Set(record.pending.filter((p) => record.inState.has(p.urn)).map((p) => p.urn));
  if (stale.size > 0) await dropPendingCreates(stack, stale);
  return [...stale];
}

/**
 * Removes these pending creates from the stack's checkpoint: exported with its
 * secrets still encrypted, edited, and imported back from a private temporary
 * file, so that no secret is ever written in plain.
 */
async function dropPendingCreates(stack: Stack, urns: Set<string>): Promise<void> {
  const env = { ...process.env, ...stack.workspace.envVars };
  const pulumi = stack.workspace.pulumiCommand.command;
  const cwd = stack.workspace.workDir;
  const { stdout } = await run(pulumi, ["stack", "export", "--stack", stack.name], { cwd, env, maxBuffer: 1 << 28 });
  const exported = JSON.parse(stdout) as {
    deployment: { pending_operations?: { type: string; resource: { urn: string } }[] };
  };
  const ops = exported.deployment.pending_operations ?? [];
  exported.deployment.pending_operations = ops.filter((op) => !(op.type === "creating" && urns.has(op.resource.urn)));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-recover-"));
  try {
    const file = path.join(dir, "stack.json");
    fs.writeFileSync(file, JSON.stringify(exported), { mode: 0o600 });
    await run(pulumi, ["stack", "import", "--stack", stack.name, "--file", file], { cwd, env });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function connectionDefaults(stack: Stack): Promise<{ endpoint?: string; token?: string }> {
  const config = await stack.getAllConfig();
  const value = (key: string): string | undefined => {
    const v = config[key]?.value;
    return v !== undefined && v.trim() !== "" ? v : undefined;
  };
  return {
    // the dynamic provider's keys, then the resource plugin's
    endpoint:
      value(`${DYNAMIC_MODULE}:endpoint`) ??
      value(`${PACKAGE}:endpoint`) ??
      (process.env.GO_PVE_QEMU_ENDPOINT || undefined),
    token:
      value(`${DYNAMIC_MODULE}:token`) ?? value(`${PACKAGE}:token`) ?? (process.env.GO_PVE_QEMU_TOKEN || undefined),
  };
}

async function listVms(endpoint: string, token: string | undefined): Promise<VmEntry[]> {
  const client = new GoPveQemuClient({ endpoint, ...(token ? { token } : {}) });
  try {
    return (await client.list()).vms;
  } finally {
    await client.close();
  }
}

function lineOf(r: Resolution, p: PendingVm, stackName: string): string {
  const what = `${p.urn.split("::").pop()} (${p.name ?? "no name"}${p.vmid !== undefined ? `, VMID ${p.vmid}` : ""})`;
  switch (r.kind) {
    case "in-state":
      return `${what}: in state already; its stale pending create is cleared after the next up`;
    case "marked":
      return `${what}: its VM carries this stack's mark; the next up takes it over`;
    case "journal":
      return `${what}: VM ${r.name}-${r.vmid} is its VM (${r.why}); recorded for the next up to take over`;
    case "nothing":
      return `${what}: nothing to take over (${r.why})`;
    case "discard":
      return `${what}: its pending create is discarded, as asked`;
    case "undecided":
      return (
        `${what}: ${r.why}: if one is this resource's VM, run \`npx go-pve-qemu-pulumi recover --stack ${stackName} --adopt '${r.urn}=<vmid>'\`; ` +
        `if none is, \`--discard '${r.urn}'\``
      );
  }
}
