// The whole life of a stack driven from a script with Pulumi's Automation API:
// no `pulumi` command typed, no Pulumi.yaml written by hand.
//
//   npx ts-node --transpile-only examples/automation/index.ts
//
// 1. starts the go-pve-qemu simulator in this process, unless GO_PVE_QEMU_ENDPOINT
//    names a server to use instead
// 2. creates (or selects) the stack `automation` of an INLINE program (the
//    `program` function below runs in this process)
// 3. sets config: goPveQemu:endpoint, goPveQemu:token (secret, from GO_PVE_QEMU_TOKEN
//    when set) and a VM password (secret)
// 4. `up`, its output streamed to stdout; then reads the stack outputs
// 5. `refresh` (reads the VMs back from the server), `destroy`, and removes the stack
//
// The state lives in a scratch file backend that is deleted at the end.
// Environment: GO_PVE_QEMU_ENDPOINT, GO_PVE_QEMU_TOKEN, AUTOMATION_VM_PASSWORD
// (default: a random one), GO_PVE_QEMU_SIM_SPEED (simulator time factor, default 50),
// PULUMI_CONFIG_PASSPHRASE (default: a fixed demo passphrase).
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { LocalWorkspace, PulumiCommand } from "@pulumi/pulumi/automation";
import { Vm } from "go-pve-qemu-pulumi";
import { ROOT, engineEnv, ensureEngine } from "../../scripts/engine-env";

const STACK = "automation";
const PROJECT = "go-pve-qemu-automation";

/** The inline program: two VMs, the second one rebooted whenever the first one's IP changes. */
async function program() {
  const config = new pulumi.Config();
  const password = config.requireSecret("vmPassword");
  const web = new Vm("web", { os: "ubuntu", version: "24.04", name: "auto-web", cpu: 2, memoryMb: 2048, password });
  const worker = new Vm("worker", {
    os: "debian",
    version: "12",
    name: "auto-worker",
    memoryMb: 1024,
    rebootTriggers: [web.ip],
  });
  return {
    web: { vmid: web.vmid, ip: web.ip, vmName: web.vmName, user: web.user, node: web.node, running: web.running },
    worker: { vmid: worker.vmid, ip: worker.ip, vmName: worker.vmName, user: worker.user },
    webPassword: web.password,
  };
}

function log(message: string): void {
  console.log(`\nautomation: ${message}`);
}

async function main(): Promise<void> {
  // 1. A server: the one named in the environment, or a simulator of our own.
  let endpoint = process.env.GO_PVE_QEMU_ENDPOINT ?? "";
  let closeSimulator = async () => {};
  if (endpoint === "") {
    const { startSimulator } = await import("../../simulator");
    const speed = Number(process.env.GO_PVE_QEMU_SIM_SPEED ?? "50");
    const sim = await startSimulator({ port: 0, speed });
    endpoint = sim.url;
    closeSimulator = () => sim.close();
    log(`started the go-pve-qemu simulator at ${endpoint} (speed x${speed})`);
  } else {
    log(`using the go-pve-qemu server at ${endpoint}`);
  }

  // Scratch space for the file backend, the engine's home and the inline
  // program's work dir. It sits inside the repository because the engine
  // starts the dynamic provider from the work dir, and the provider launcher
  // finds node_modules/@pulumi/pulumi by walking up from there.
  fs.mkdirSync(path.join(ROOT, ".pulumi-state"), { recursive: true });
  const scratch = fs.mkdtempSync(path.join(ROOT, ".pulumi-state", "automation-"));
  const backendDir = path.join(scratch, "backend");
  const workDir = path.join(scratch, "program");
  fs.mkdirSync(backendDir);
  fs.mkdirSync(workDir);

  try {
    const bin = ensureEngine();
    const pulumiCommand = await PulumiCommand.get({ root: path.dirname(bin), skipVersionCheck: true });
    const envVars = engineEnv({ backendDir, homeDir: path.join(scratch, "home") });

    // 2. The stack of the inline program.
    const stack = await LocalWorkspace.createOrSelectStack(
      { stackName: STACK, projectName: PROJECT, program },
      { workDir, envVars, pulumiCommand },
    );
    log(`stack ${stack.name} of project ${PROJECT} is ready (inline program, file backend in ${backendDir})`);

    // 3. Config. Secrets are encrypted with the passphrase in the stack's config and state.
    const vmPassword = process.env.AUTOMATION_VM_PASSWORD || randomBytes(12).toString("base64url");
    await stack.setAllConfig({
      "goPveQemu:endpoint": { value: endpoint },
      vmPassword: { value: vmPassword, secret: true },
      ...(process.env.GO_PVE_QEMU_TOKEN
        ? { "goPveQemu:token": { value: process.env.GO_PVE_QEMU_TOKEN, secret: true } }
        : {}),
    });

    const stream = { onOutput: (text: string) => process.stdout.write(text) };
    let failure: unknown;
    try {
      // 4. up, then the outputs.
      log("pulumi up");
      const up = await stack.up(stream);
      log(`up: ${up.summary.result}, ${JSON.stringify(up.summary.resourceChanges ?? {})}`);

      const outputs = await stack.outputs();
      const web = outputs.web?.value as
        { vmid: number; ip: string; vmName: string; user: string; node: string; running: boolean } | undefined;
      const worker = outputs.worker?.value as { vmid: number; ip: string; vmName: string } | undefined;
      const password = outputs.webPassword;
      if (!web || !worker || !password) throw new Error(`missing stack outputs: ${Object.keys(outputs).join(", ")}`);
      log(
        `web:    ${web.vmName} (VMID ${web.vmid}) at ${web.ip}, user ${web.user}, node ${web.node}, running ${web.running}`,
      );
      log(`worker: ${worker.vmName} (VMID ${worker.vmid}) at ${worker.ip}`);
      if (!password.secret) throw new Error("webPassword should be a secret output");
      if (password.value !== vmPassword) throw new Error("webPassword does not match the password set in config");
      log("webPassword: [secret], and it is the one set in config");

      // 5. refresh: read every VM back from the server and record any drift.
      log("pulumi refresh");
      const refresh = await stack.refresh(stream);
      log(`refresh: ${refresh.summary.result}, ${JSON.stringify(refresh.summary.resourceChanges ?? {})}`);
    } catch (err) {
      failure = err;
      log(`${err instanceof Error ? err.message : String(err)}\nautomation: destroying what was made, then failing`);
    }

    // Tear down in any case, so nothing is left on the server.
    log("pulumi destroy");
    const destroy = await stack.destroy(stream);
    log(`destroy: ${destroy.summary.result}, ${JSON.stringify(destroy.summary.resourceChanges ?? {})}`);
    await stack.workspace.removeStack(STACK);
    log(`removed stack ${STACK}`);
    if (failure !== undefined) throw failure;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
    await closeSimulator();
  }
  log("done");
}

main().catch((err: unknown) => {
  console.error(`\nautomation: failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
