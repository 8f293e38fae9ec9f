// POST /api/vm/install, first half: the handler (IP check, body binding) and
// the preparation stages up to `SSH preparation`, in the server's order with
// its texts. Values are changed the way the server changes them: validation of
// cpu/ram/disk runs before the defaults are applied (see applyDefaultsFirst).
import type { SimCore } from "./core";
import { SimulatorClosed } from "./clock";
import { Flow, OperationStopped } from "./flow";
import { bindJson, goAtoi, INSTALL_BODY } from "./gobind";
import { goJson } from "./gojson";
import { ipAllowed } from "./guards";
import { sendJson, type Ctx } from "./http";
import type { InstallJob, Outcome } from "./install-job";
import { runVmStages } from "./install-vm";
import { EventStream } from "./sse";
import { seconds } from "./clock";
import { defaultUser } from "./state";
import { candidateOrder, probeVmid } from "./vmid-probe";

export async function handleInstall(core: SimCore, ctx: Ctx): Promise<void> {
  const stream = new EventStream(ctx, (destroy) => core.holdOpen(destroy));
  if (!ipAllowed(core, ctx.clientIp)) {
    stream.bareAndEnd("this IP is not allowed to perform this action");
    return;
  }
  const bound = bindJson(INSTALL_BODY, ctx.body);
  if (!bound.ok) {
    sendJson(ctx, 400, goJson({ success: false, message: "please check your input:" + bound.error }));
    return;
  }
  const b = bound.value;
  const job: InstallJob = {
    id: b.id as number,
    autoId: b.id === 0,
    requestedName: b.name as string,
    name: b.name as string,
    node: b.node as string,
    os: b.os as string,
    version: b.version as string,
    cpu: b.cpu as number,
    ram: b.ram as number,
    disk: b.disk as string,
    user: b.user as string,
    passwd: b.passwd as string,
    ip: "",
    storage: "",
  };
  if (core.cfg.applyDefaultsFirst) {
    if (job.cpu === 0) job.cpu = 2;
    if (job.ram === 0) job.ram = 2048;
  }

  stream.open();
  core.stats.installsStarted++;
  const ended = core.installs.begin(
    job.requestedName,
    () => job.id,
    () => job.passwd,
  );
  const flow = new Flow(core, stream, "install", job.id, job.requestedName ? [job.requestedName] : []);
  const work = (async () => {
    let outcome: Outcome;
    let stopped = false;
    try {
      outcome = await runInstall(flow, job);
    } catch (err) {
      // An error frame ended it (its response is over), or the process died.
      if (!(err instanceof OperationStopped)) {
        if (err instanceof SimulatorClosed) ended("cut-short");
        throw err;
      }
      outcome = "error";
      stopped = true;
    }
    ended(outcome);
    if (outcome === "completed") core.stats.installsSucceeded++;
    else if (outcome === "error") core.stats.installsFailed++;
    else core.stats.installsSilent++;
    core.log(`install ${job.id || "(no VMID)"} ended: ${outcome}`);
    if (stopped) return;
    // The handler writes the close event whatever Install returned.
    await flow.enter("close");
    stream.close();
  })().catch((err: unknown) => {
    if (!(err instanceof OperationStopped)) throw err;
  });
  core.track(work);
  await work.catch(() => undefined);
}

async function runInstall(flow: Flow, job: InstallJob): Promise<Outcome> {
  const prepared = await runPreparation(flow, job);
  if (prepared !== null) return prepared;
  return runVmStages(flow, job);
}

/** Stages `preparation`, `OS preparation`, `SSH preparation`; null when all passed. */
async function runPreparation(flow: Flow, job: InstallJob): Promise<Outcome | null> {
  const { core, d } = flow;
  const cfg = core.cfg;
  const error = (step: string, message: string): Outcome => {
    flow.emit(step, "error", message);
    return "error";
  };

  await flow.enter("begin");
  flow.emit("", "processing", "[*] start VM installation");

  flow.startStep();
  let step = "preparation > checking VMID";
  await flow.enter("checking VMID");
  if (job.autoId) {
    const fault = flow.failing("checking VMID");
    const pick = fault ? null : pickVmid(core);
    await flow.spend(pick === null ? d.checkVmidAuto : d.checkVmidAuto * pick.after);
    const vmid = pick?.vmid ?? null;
    if (vmid === null)
      return error(step, `[-] failed to find free VMID: ${fault?.detail ?? "cannot find available IP"}`);
    job.id = vmid;
    flow.vmid = vmid;
    flow.emit(step, "success", `[+] auto-assigned VMID: ${vmid} (${seconds(flow.since())}s)`);
  } else {
    await flow.spend(d.checkVmidPinned);
    flow.emit(step, "processing", `[*] using specified VMID: ${job.id} (${seconds(flow.since())}s)`);
  }

  step = "preparation > assigning IP";
  flow.startStep();
  await flow.enter("assigning IP");
  const parts = cfg.gateway.split(".");
  const gatewayFault = flow.failing("assigning IP");
  if (parts.length !== 4 || gatewayFault) {
    return error(step, `[-] invalid gateway format: ${gatewayFault?.detail ?? cfg.gateway}`);
  }
  job.ip = `${parts.slice(0, 3).join(".")}.${job.id}/24`;
  await flow.spend(d.assignIp);
  flow.emit(step, "success", `[+] assigned IP: ${job.ip} (${seconds(flow.since())}s)`);

  flow.startStep();
  step = "preparation > validating CPU and RAM";
  await flow.enter("validating CPU and RAM");
  if (job.cpu <= 0) {
    flow.emit(step, "processing", "[*] setting CPU to minimum 1");
    job.cpu = 1;
  } else if (cfg.maxCpu !== 0 && job.cpu > cfg.maxCpu) {
    flow.emit(step, "processing", `[*] setting CPU to maximum ${cfg.maxCpu}`);
    job.cpu = cfg.maxCpu;
  }
  if (job.ram < 512) {
    flow.emit(step, "processing", "[*] setting RAM to minimum 512 for ensure system stability");
    job.ram = 512;
  } else if (cfg.maxRam !== 0 && job.ram > cfg.maxRam) {
    flow.emit(step, "processing", `[*] setting RAM to maximum ${cfg.maxRam}`);
    job.ram = cfg.maxRam;
  }
  await flow.spend(d.validateCpuRam);
  flow.emit(step, "success", `[+] CPU and RAM validated (${seconds(flow.since())}s)`);

  flow.startStep();
  step = "preparation > validating disk size";
  await flow.enter("validating disk size");
  // strconv.Atoi(strings.TrimSuffix(disk, "G")), error ignored: "1T" or "20.5G" read as 0.
  const diskSize = goAtoi(job.disk.endsWith("G") ? job.disk.slice(0, -1) : job.disk).value;
  if (diskSize < 16) {
    flow.emit(step, "processing", "[*] setting disk to minimum 16G");
    job.disk = "16G";
  } else if (cfg.maxDisk !== 0 && diskSize >= cfg.maxDisk) {
    flow.emit(step, "processing", `[*] setting disk to maximum ${cfg.maxDisk}G`);
    job.disk = `${cfg.maxDisk}G`;
  } else {
    job.disk = `${diskSize}G`;
  }
  await flow.spend(d.validateDisk);
  flow.emit(step, "success", `[+] disk size validated (${seconds(flow.since())}s)`);

  flow.startStep();
  step = "preparation > setting default config values";
  await flow.enter("setting default config values");
  flow.emit(step, "processing", "[*] set default config values");
  const defaultsFault = flow.failing("setting default config values");
  if (defaultsFault)
    return error(step, `[-] failed to set default config values: ${defaultsFault.detail ?? "unknown"}`);
  applyDefaults(job);
  await flow.spend(d.defaultConfig);
  flow.emit(step, "success", `[+] default config values set (${seconds(flow.since())}s)`);

  flow.startStep();
  step = "preparation > checking storage pool";
  await flow.enter("checking storage pool");
  job.storage = cfg.storage;
  flow.emit(step, "processing", `[*] check storage pool: ${job.storage}`);
  await flow.spend(d.storagePool);
  if (flow.failing("checking storage pool") || core.storages[job.storage] !== true) {
    return error(step, `[-] storage pool ${job.storage} does not exist or is inactive`);
  }
  flow.emit(step, "success", `[+] storage pool ${job.storage} is available (${seconds(flow.since())}s)`);

  const image = await prepareImage(flow, job);
  if (image !== null) return image;
  return prepareSshKey(flow);
}

/** initConfig: real name, defaults (only zero values are touched). */
function applyDefaults(job: InstallJob): void {
  job.name = job.name === "" ? String(job.id) : `${job.name}-${job.id}`;
  if (job.cpu === 0) job.cpu = 2;
  if (job.ram === 0) job.ram = 2048;
  if (job.disk === "") job.disk = "16G";
  if (job.user === "") job.user = defaultUser(job.os);
  if (job.passwd === "") job.passwd = "passwd";
}

/**
 * The auto VMID: probed as the server does (vmid-probe.ts), or the lowest
 * free one (vmidPick: "lowest"). A VM being installed has no config until
 * `creating VM`: that gap is the race two concurrent installs can fall into.
 */
function pickVmid(core: SimCore): { vmid: number; after: number } | null {
  const cluster = {
    start: core.cfg.assignIpStart,
    end: core.cfg.assignIpEnd,
    taken: (vmid: number) => core.store.vms.has(vmid) || core.store.isDisabled(vmid),
    answers: (vmid: number) => core.ipsInUse.includes(vmid),
  };
  if (core.cfg.vmidPick === "probe") return probeVmid(cluster, core.probeRng);
  const vmid = candidateOrder(cluster.start, cluster.end)
    .sort((a, b) => a - b)
    .find((v) => !cluster.taken(v) && !cluster.answers(v));
  return vmid === undefined ? null : { vmid, after: 1 };
}

const SUPPORTED: Record<string, { label: string; versions: readonly string[] }> = {
  debian: { label: "Debian", versions: ["11", "12", "13"] },
  rockylinux: { label: "RockyLinux", versions: ["8", "9", "10"] },
  ubuntu: { label: "Ubuntu Server", versions: ["20.04", "22.04", "24.04"] },
};

async function prepareImage(flow: Flow, job: InstallJob): Promise<Outcome | null> {
  const { core, d } = flow;
  flow.startStep();
  let step = "OS preparation > getting OS image";
  await flow.enter("getting OS image");
  flow.emit(step, "processing", "[*] OS preparation");
  flow.emit(step, "processing", "[*] get OS image download link");
  const os = SUPPORTED[job.os];
  const fault = flow.failing("getting OS image");
  let problem: string | null = null;
  if (!os) problem = `unsupported OS: ${job.os}`;
  else if (!os.versions.includes(job.version)) problem = `unsupported ${os.label} version: ${job.version}`;
  if (fault) problem = fault.detail ?? `unsupported OS: ${job.os}`;
  await flow.spend(d.getOsImage);
  if (problem !== null) {
    flow.emit(step, "error", `[-] failed to get OS image URL: ${problem}`);
    return "error";
  }
  flow.emit(step, "success", `[+] OS image URL obtained (${seconds(flow.since())}s)`);

  flow.startStep();
  step = "OS preparation > validating OS image URL";
  await flow.enter("validating OS image URL");
  flow.emit(step, "processing", "[*] check OS image URL availability");
  await flow.spend(d.validateImageUrl);
  const urlFault = flow.failing("validating OS image URL");
  if (urlFault) {
    flow.emit(
      step,
      "error",
      `[-] OS image URL is not accessible: ${urlFault.detail ?? "failed to access URL: 404 Not Found"}`,
    );
    return "error";
  }
  flow.emit(step, "success", `[+] OS image URL is valid (${seconds(flow.since())}s)`);

  flow.startStep();
  const key = `${job.os}/${job.version}`;
  if (!core.store.images.has(key)) {
    step = "OS preparation > downloading OS image";
    await flow.enter("downloading OS image");
    flow.emit(step, "processing", "[*] start downloading OS image");
    await flow.spend(d.downloadImage);
    const dlFault = flow.failing("downloading OS image");
    if (dlFault) {
      flow.emit(
        step,
        "error",
        `[-] failed to download OS image: ${dlFault.detail ?? "failed to download image: 404 Not Found"}`,
      );
      return "error";
    }
    core.store.images.add(key);
    core.store.persist();
    flow.emit(step, "success", `[+] completed OS image download (${seconds(flow.since())}s)`);
  } else {
    step = "OS preparation > using OS image";
    await flow.enter("using OS image");
    await flow.spend(d.useImage);
    flow.emit(step, "success", `[+] using OS image (${seconds(flow.since())}s)`);
  }
  return null;
}

/** The one error event the server recovers from: no SSH key pair yet. */
async function prepareSshKey(flow: Flow): Promise<Outcome | null> {
  const { core, d } = flow;
  flow.startStep();
  let step = "SSH preparation > checking SSH key";
  await flow.enter("checking SSH key");
  flow.emit(step, "processing", "[*] SSH preparation");
  await flow.spend(d.sshKeyCheck);
  const fault = flow.failing("checking SSH key");
  if (fault) {
    // checkUserPubkey's stop=true case (no home directory): not recoverable.
    flow.emit(step, "error", `[-] failed to check user SSH key: ${fault.detail ?? "$HOME is not defined"}`);
    return "error";
  }
  if (!core.store.sshKey) {
    flow.emit(step, "error", "[-] failed to check user SSH key: failed to find user SSH public key");
    step = "SSH preparation > creating SSH key";
    await flow.enter("creating SSH key");
    flow.emit(step, "processing", "[*] create SSH key");
    await flow.spend(d.sshKeyCreate);
    const createFault = flow.failing("creating SSH key");
    // ssh-keygen will not overwrite a key another install created meanwhile.
    if (createFault || core.store.sshKey) {
      flow.emit(step, "error", `[-] failed to create SSH key: ${createFault?.detail ?? "exit status 1"}`);
      return "error";
    }
    core.store.sshKey = true;
    core.store.persist();
    flow.emit(step, "success", `[+] successfully created SSH key pair (${seconds(flow.since())}s)`);
  }
  flow.emit(step, "success", `[+] completed SSH preparation (${seconds(flow.since())}s)`);
  return null;
}
