// End-to-end harness: a simulator, a throwaway file backend, and a stack of a
// program (test/e2e/programs/fleet unless told otherwise) driven through the
// Automation API and the real Pulumi engine (built or found by
// scripts/ensure-engine.sh). Each operation keeps its own engine events and
// output, so a test reads what its own `up` said, never a previous test's.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  LocalWorkspace,
  PulumiCommand,
  type EngineEvent,
  type Stack,
  type UpResult,
  type PreviewResult,
} from "@pulumi/pulumi/automation";
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from "../../simulator";
import { engineEnv, ensureEngine, ROOT } from "../../scripts/engine-env";

const FLEET = path.join(ROOT, "test", "e2e", "programs", "fleet");
const WORK = path.join(ROOT, ".e2e-work");
const PASSPHRASE = "e2e-passphrase";

/** What the engine said during one operation. */
export interface Transcript {
  events: EngineEvent[];
  output: string[];
}

type Severity = "info" | "warning" | "debug" | "error";

export interface Fleet {
  stack: Stack;
  sim: SimulatorHandle;
  /** What the engine said during the last operation (up, preview, refresh, destroy). */
  readonly last: Transcript;
  /** Every engine event of this fleet's operations, in order (a test slices off its own). */
  readonly events: EngineEvent[];
  /** Everything the engine printed during this fleet's operations. */
  readonly output: string[];
  /** The program's copy, where `pulumi` runs. */
  workDir: string;
  /** The engine's environment for this stack (for running `pulumi` directly). */
  env: Record<string, string>;
  setVms(vms: Record<string, object>): Promise<void>;
  /** The resources a stack holds beside its Vms: the stack itself, and on the dynamic provider its StackIdentity. */
  readonly others: number;
  /** Sets a provider setting (`endpoint`, `pollIntervalMs`, ...) under the fleet's way in's namespace. */
  setSetting(key: string, value: string): Promise<void>;
  /** `signal`: the Automation API's abort (it sends SIGINT to `pulumi`); `parallel`: the engine's --parallel. */
  up(opts?: { signal?: AbortSignal; parallel?: number }): Promise<UpResult>;
  preview(opts?: { parallel?: number }): Promise<PreviewResult>;
  refresh(): Promise<void>;
  destroy(): Promise<void>;
  /** The raw text of the stack's state file(s) in the backend. */
  stateText(): string;
  /** The resource states of the current checkpoint, by resource name. */
  resources(): Record<string, StateResource>;
  /** The pending operations the checkpoint records (an interrupted deployment's), as kind and resource name. */
  pendingOperations(): { type: string; name: string }[];
  /** The stack's identity (the StackIdentity resource's secret output), decrypted. */
  identity(): Promise<string>;
  /** Lines of the diagnostic messages the engine attached to resource `name` in the last operation. */
  diagnosticsFor(name: string, severity?: Severity): string[];
  dispose(): Promise<void>;
}

interface StateResource {
  urn?: string;
  id?: string;
  outputs: Record<string, unknown>;
  inputs: Record<string, unknown>;
  initErrors?: string[];
}

export interface FleetOptions {
  /** The program folder to copy (default: programs/fleet). */
  program?: string;
  /** Stack name (default e2e). */
  stackName?: string;
  /** Passphrase of the stack's secrets. */
  passphrase?: string;
  /** Files copied into the program's copy before the stack is made (a stack config with its salt, say). */
  extraFiles?: string[];
  /** A simulator already started (the caller owns it); else one is started. */
  sim?: SimulatorHandle;
  /**
   * Give the program's copy a node_modules/go-pve-qemu-pulumi (a link to this
   * checkout), as a user's project has after `npm install`: that is where the
   * provider process finds the implementation named by state that another
   * checkout or another machine wrote.
   */
  installPackage?: boolean;
  /** The way in the program's Vms go through: the dynamic provider (default) or the resource plugin. */
  via?: WayIn;
}

export type WayIn = "dynamic" | "plugin";
/** Both ways in, for suites that must behave the same through either. */
export const BOTH_WAYS_IN: WayIn[] = ["dynamic", "plugin"];

/** Each way in's Vm type, and the namespace of its settings. */
const WAYS_IN = {
  dynamic: { vmType: "pulumi-nodejs:dynamic/goPveQemu:Vm", ns: "goPveQemu" },
  plugin: { vmType: "gopveqemu:index:Vm", ns: "gopveqemu" },
} as const;

interface Checkpoint {
  resources?: (StateResource & { type: string; urn: string })[];
  pending_operations?: { type: string; resource: { urn: string } }[];
}

const IDENTITY_TYPE = "pulumi-nodejs:dynamic/goPveQemu:StackIdentity";

export async function newFleet(simOptions: SimulatorOptions = {}, opts: FleetOptions = {}): Promise<Fleet> {
  const sim = opts.sim ?? (await startSimulator({ speed: 2000, ...simOptions }));
  const stackName = opts.stackName ?? "e2e";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-e2e-"));
  // The program runs from a copy inside the repository, so that it resolves
  // `go-pve-qemu-pulumi` to this checkout and its stack files stay apart.
  fs.mkdirSync(WORK, { recursive: true });
  const program = opts.program ?? FLEET;
  const workDir = fs.mkdtempSync(path.join(WORK, `${path.basename(program)}-`));
  fs.cpSync(program, workDir, { recursive: true });
  for (const f of opts.extraFiles ?? []) fs.copyFileSync(f, path.join(workDir, path.basename(f)));
  if (opts.installPackage) {
    fs.mkdirSync(path.join(workDir, "node_modules"));
    fs.symlinkSync(ROOT, path.join(workDir, "node_modules", "go-pve-qemu-pulumi"), "dir");
  }
  const projectName = /^name:\s*(\S+)/m.exec(fs.readFileSync(path.join(workDir, "Pulumi.yaml"), "utf8"))![1]!;
  const backendDir = path.join(dir, "backend");
  fs.mkdirSync(backendDir);
  const bin = ensureEngine();
  const env = {
    ...engineEnv({ backendDir, homeDir: path.join(dir, "home"), passphrase: opts.passphrase ?? PASSPHRASE }),
    // The developer's own defaults must not leak into the tests (empty means unset).
    GO_PVE_QEMU_ENDPOINT: "",
    GO_PVE_QEMU_TOKEN: "",
  };
  const pulumiCommand = await PulumiCommand.get({ root: path.dirname(bin), skipVersionCheck: true });
  const stack = await LocalWorkspace.createOrSelectStack({ stackName, workDir }, { envVars: env, pulumiCommand });
  const way = WAYS_IN[opts.via ?? "dynamic"];
  /** A setting under this way in's namespace; a `goPveQemu:` key as the tests write them is moved there. */
  const setSetting = (key: string, value: string) =>
    stack.setConfig(`${way.ns}:${key.replace(/^goPveQemu:/, "")}`, { value });
  if (opts.via === "plugin") await stack.setConfig("via", { value: "plugin" });
  await setSetting("endpoint", sim.url);

  const all: Transcript = { events: [], output: [] };
  let last: Transcript = { events: [], output: [] };
  /** A fresh transcript for each operation (and the fleet's whole one). */
  const streams = () => {
    last = { events: [], output: [] };
    const t = last;
    return {
      onEvent: (e: EngineEvent) => {
        t.events.push(e);
        all.events.push(e);
      },
      onOutput: (s: string) => {
        t.output.push(s);
        all.output.push(s);
      },
    };
  };
  const stateFile = path.join(backendDir, ".pulumi", "stacks", projectName, `${stackName}.json`);
  const latest = (): Checkpoint => JSON.parse(fs.readFileSync(stateFile, "utf8")).checkpoint?.latest ?? {};

  return {
    stack,
    sim,
    workDir,
    env,
    get last() {
      return last;
    },
    events: all.events,
    output: all.output,
    setVms: (vms) => stack.setConfig("vms", { value: JSON.stringify(vms) }),
    setSetting,
    others: opts.via === "plugin" ? 1 : 2,
    up: (o) => stack.up({ ...streams(), ...o }),
    preview: (o) => stack.preview({ ...streams(), diff: true, ...o }),
    refresh: async () => {
      await stack.refresh(streams());
    },
    destroy: async () => {
      await stack.destroy(streams());
    },
    stateText: () => readTree(backendDir),
    resources: () => {
      const out: Record<string, StateResource> = {};
      for (const r of latest().resources ?? []) {
        if (String(r.type) === way.vmType) out[String(r.urn).split("::").pop()!] = r;
      }
      return out;
    },
    identity: async () => {
      const exported = await stack.exportStack();
      const resources = (exported.deployment.resources ?? []) as {
        type: string;
        outputs?: { identity?: unknown; stackIdentity?: unknown };
      }[];
      // On the resource plugin, the identity is an input of the provider (made in its CheckConfig).
      const found =
        opts.via === "plugin"
          ? resources.find((r) => r.type === "pulumi:providers:gopveqemu")?.outputs?.stackIdentity
          : resources.find((r) => r.type === IDENTITY_TYPE)?.outputs?.identity;
      return typeof found === "string" ? found : String(JSON.parse((found as { plaintext: string }).plaintext));
    },
    pendingOperations: () =>
      (latest().pending_operations ?? []).map((op) => ({
        type: op.type,
        name: op.resource.urn.split("::").pop()!,
      })),
    diagnosticsFor: (name, severity) => diagnostics(last.events, name, severity),
    dispose: async () => {
      await stack.workspace.removeStack(stackName, { force: true }).catch(() => undefined);
      if (!opts.sim) await sim.close();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/** Lines of the diagnostics attached to resource `name` (a message may hold several). */
export function diagnostics(events: EngineEvent[], name: string, severity?: Severity): string[] {
  return events
    .map((e) => e.diagnosticEvent)
    .filter((d) => d !== undefined && (d.urn ?? "").endsWith(`::${name}`))
    .filter((d) => severity === undefined || String(d!.severity) === severity)
    .flatMap((d) => d!.message.replace(/\n$/, "").split("\n"));
}

/** Lines of the diagnostics of the whole stack (attached to no resource). */
export function stackDiagnostics(events: EngineEvent[], severity?: Severity): string[] {
  return events
    .map((e) => e.diagnosticEvent)
    .filter((d) => d !== undefined && (d.urn ?? "") === "")
    .filter((d) => severity === undefined || String(d!.severity) === severity)
    .flatMap((d) => d!.message.replace(/\n$/, "").split("\n"));
}

/** The error of an operation expected to fail, as text (fails the test when it succeeds). */
export async function failureOf(op: Promise<unknown>): Promise<string> {
  try {
    await op;
  } catch (err) {
    return String(err);
  }
  throw new Error("the operation succeeded, expected it to fail");
}

/** VMs on the simulator that are not in Pulumi's state. */
export function orphans(fleet: Fleet): number[] {
  const inState = new Set(Object.values(fleet.resources()).map((r) => Number(r.id)));
  return fleet.sim
    .vms()
    .map((v) => v.vmid)
    .filter((vmid) => !inState.has(vmid));
}

function readTree(dir: string): string {
  let text = "";
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += fs.readFileSync(path.join(entry.parentPath, entry.name), "utf8");
  }
  return text;
}
