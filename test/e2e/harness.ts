// End-to-end harness: a simulator, a throwaway file backend, and a stack of
// test/e2e/programs/fleet driven through the Automation API and the real
// Pulumi engine (built or found by scripts/ensure-engine.sh).
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

export const FLEET = path.join(ROOT, "test", "e2e", "programs", "fleet");
const WORK = path.join(ROOT, ".e2e-work");
const PASSPHRASE = "e2e-passphrase";

export interface Fleet {
  stack: Stack;
  sim: SimulatorHandle;
  /** Every engine event of every operation so far. */
  events: EngineEvent[];
  /** Everything the engine printed so far. */
  output: string[];
  setVms(vms: Record<string, object>): Promise<void>;
  up(): Promise<UpResult>;
  preview(): Promise<PreviewResult>;
  refresh(): Promise<void>;
  destroy(): Promise<void>;
  /** The raw text of the stack's state file(s) in the backend. */
  stateText(): string;
  /** The resource states of the current checkpoint, by resource name. */
  resources(): Record<string, { id?: string; outputs: Record<string, unknown>; inputs: Record<string, unknown> }>;
  /** Lines of the diagnostic messages the engine attached to resource `name` (a message may hold several). */
  diagnosticsFor(name: string, severity?: "info" | "warning" | "debug" | "error"): string[];
  dispose(): Promise<void>;
}

export async function newFleet(simOptions: SimulatorOptions = {}): Promise<Fleet> {
  const sim = await startSimulator({ speed: 2000, ...simOptions });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-e2e-"));
  // The program runs from a copy inside the repository, so that it resolves
  // `go-pve-qemu-pulumi` to this checkout and its stack files stay apart.
  fs.mkdirSync(WORK, { recursive: true });
  const workDir = fs.mkdtempSync(path.join(WORK, "fleet-"));
  fs.cpSync(FLEET, workDir, { recursive: true });
  const backendDir = path.join(dir, "backend");
  fs.mkdirSync(backendDir);
  const bin = ensureEngine();
  const env = {
    ...engineEnv({ backendDir, homeDir: path.join(dir, "home"), passphrase: PASSPHRASE }),
    // The developer's own defaults must not leak into the tests (empty means unset).
    GO_PVE_QEMU_ENDPOINT: "",
    GO_PVE_QEMU_TOKEN: "",
  };
  const pulumiCommand = await PulumiCommand.get({ root: path.dirname(bin), skipVersionCheck: true });
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: "e2e", workDir },
    { envVars: env, pulumiCommand },
  );
  await stack.setConfig("goPveQemu:endpoint", { value: sim.url });

  const events: EngineEvent[] = [];
  const output: string[] = [];
  const streams = { onEvent: (e: EngineEvent) => events.push(e), onOutput: (s: string) => output.push(s) };

  return {
    stack,
    sim,
    events,
    output,
    setVms: (vms) => stack.setConfig("vms", { value: JSON.stringify(vms) }),
    up: () => stack.up(streams),
    preview: () => stack.preview({ ...streams, diff: true }),
    refresh: async () => {
      await stack.refresh(streams);
    },
    destroy: async () => {
      await stack.destroy(streams);
    },
    stateText: () => readTree(backendDir),
    resources: () => {
      const file = findStateFile(backendDir);
      const checkpoint = JSON.parse(fs.readFileSync(file, "utf8"));
      const out: ReturnType<Fleet["resources"]> = {};
      for (const r of checkpoint.checkpoint?.latest?.resources ?? []) {
        if (String(r.type) === "pulumi-nodejs:dynamic/goPveQemu:Vm") out[String(r.urn).split("::").pop()!] = r;
      }
      return out;
    },
    diagnosticsFor: (name, severity) =>
      events
        .map((e) => e.diagnosticEvent)
        .filter((d) => d !== undefined && (d.urn ?? "").endsWith(`::${name}`))
        .filter((d) => severity === undefined || String(d!.severity) === severity)
        .flatMap((d) => d!.message.replace(/\n$/, "").split("\n")),
    dispose: async () => {
      await stack.workspace.removeStack("e2e", { force: true }).catch(() => undefined);
      await sim.close();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(workDir, { recursive: true, force: true });
    },
  };
}

function findStateFile(backendDir: string): string {
  const stacks = path.join(backendDir, ".pulumi", "stacks", "fleet");
  return path.join(stacks, "e2e.json");
}

function readTree(dir: string): string {
  let text = "";
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += fs.readFileSync(path.join(entry.parentPath, entry.name), "utf8");
  }
  return text;
}
