// Command line: `node dist/simulator/cli.js --port 8080 --speed 100 --state sim.json`.
// Prints `go-pve-qemu simulator listening on http://127.0.0.1:PORT` first, then
// serves until SIGINT or SIGTERM. Flags override the --config file; both are
// validated with zod and rejected with a clear message.
import * as fs from "node:fs";
import { parseArgs } from "node:util";
import { z } from "zod";
import { startSimulator } from "./index";
import { describeZodError } from "./schemas";
import { FaultRuleSchema } from "./fault-rules";
import type { SimulatorOptions } from "./schemas";

const USAGE = `usage: go-pve-qemu-sim [options]
  --port <n>               port on 127.0.0.1 (default 0: any free port)
  --speed <x>              simulated time runs x times faster (default 1)
  --state <file>           keep VMs, SSH key and image cache in this JSON file
  --config <file>          JSON file with any startSimulator option (flags win)
  --max-cpu <n>            VM_MAX_CPU (default 32, 0 = none)
  --max-ram <mb>           VM_MAX_RAM (default 32768, 0 = none)
  --max-disk <gb>          VM_MAX_DISK (default 64, 0 = none)
  --gateway <ip>           GATEWAY (default 192.168.0.1)
  --main-node <name>       MAIN_NODE (default pve1)
  --nodes <a,b,...>        cluster nodes (default pve1,pve2)
  --storage <name>         ASSIGN_STORAGE (default local-zfs)
  --assign-ip-start <n>    ASSIGN_IP_START (default 100)
  --assign-ip-end <n>      ASSIGN_IP_END (default 254)
  --allow-ips <list>       ALLOW_IPS (default 0.0.0.0 = everyone)
  --ssh-key                start with an SSH key pair
  --image-cache <a,b>      cached images, e.g. ubuntu/24.04,debian/12
  --disabled <json>        .go_qemu_disabled entries, e.g. [{"vmid":150,"name":"db"}]
  --disabled-missing       no .go_qemu_disabled file at all
  --durations-zero         every duration 0
  --fault <json>           a fault rule (repeatable)
  --status-local-only      qm status only sees VMs of the main node (the default)
  --status-any-node        qm status sees VMs of every node (not the real server)
  --guest-shutdown-ms <n>  simulated ms a guest takes to power off (qm shutdown waits; default 8000)
  --vmid-pick <how>        probe (the server's: both ends at once, first free answer) or lowest
  --seed <n>               seed of every random choice (default 1)
  --measured-rates         stream corruption at the rates measured on the real server
  --apply-defaults-first   cpu 2 / ram 2048 defaults before validation
  --log                    print each request and fault to stderr
  --help                   this text`;

const num = (flag: string) =>
  z.string().transform((s, ctx) => {
    const n = Number(s);
    if (s.trim() === "" || !Number.isFinite(n)) {
      ctx.addIssue({ code: "custom", message: `--${flag} expects a number, got "${s}"` });
      return z.NEVER;
    }
    return n;
  });

const list = z.string().transform((s) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== ""),
);

const jsonValue = (flag: string) =>
  z.string().transform((s, ctx) => {
    try {
      return JSON.parse(s) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: `--${flag} expects JSON, got ${s}` });
      return z.NEVER;
    }
  });

const FlagsSchema = z.object({
  port: num("port").optional(),
  speed: num("speed").optional(),
  state: z.string().optional(),
  config: z.string().optional(),
  "max-cpu": num("max-cpu").optional(),
  "max-ram": num("max-ram").optional(),
  "max-disk": num("max-disk").optional(),
  gateway: z.string().optional(),
  "main-node": z.string().optional(),
  nodes: list.optional(),
  storage: z.string().optional(),
  "assign-ip-start": num("assign-ip-start").optional(),
  "assign-ip-end": num("assign-ip-end").optional(),
  "allow-ips": z.string().optional(),
  "ssh-key": z.boolean().optional(),
  "image-cache": list.optional(),
  disabled: jsonValue("disabled").optional(),
  "disabled-missing": z.boolean().optional(),
  "durations-zero": z.boolean().optional(),
  fault: z.array(jsonValue("fault").pipe(FaultRuleSchema)).optional(),
  "status-local-only": z.boolean().optional(),
  "status-any-node": z.boolean().optional(),
  "guest-shutdown-ms": num("guest-shutdown-ms").optional(),
  "vmid-pick": z.enum(["probe", "lowest"]).optional(),
  seed: num("seed").optional(),
  "measured-rates": z.boolean().optional(),
  "apply-defaults-first": z.boolean().optional(),
  log: z.boolean().optional(),
  help: z.boolean().optional(),
});

const str = { type: "string" } as const;
const bool = { type: "boolean" } as const;

export function parseCli(argv: string[]): SimulatorOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: str,
      speed: str,
      state: str,
      config: str,
      "max-cpu": str,
      "max-ram": str,
      "max-disk": str,
      gateway: str,
      "main-node": str,
      nodes: str,
      storage: str,
      "assign-ip-start": str,
      "assign-ip-end": str,
      "allow-ips": str,
      "ssh-key": bool,
      "image-cache": str,
      disabled: str,
      "disabled-missing": bool,
      "durations-zero": bool,
      fault: { type: "string", multiple: true },
      "status-local-only": bool,
      "status-any-node": bool,
      "guest-shutdown-ms": str,
      "vmid-pick": str,
      seed: str,
      "measured-rates": bool,
      "apply-defaults-first": bool,
      log: bool,
      help: bool,
    },
  });
  const parsed = FlagsSchema.safeParse(values);
  if (!parsed.success) throw describeZodError("invalid command line", parsed.error);
  const f = parsed.data;
  if (f.help) return "help";

  let fromFile: Record<string, unknown> = {};
  if (f.config !== undefined) {
    try {
      fromFile = JSON.parse(fs.readFileSync(f.config, "utf8")) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`cannot read --config ${f.config}: ${(err as Error).message}`, { cause: err });
    }
    if (typeof fromFile !== "object" || fromFile === null || Array.isArray(fromFile)) {
      throw new Error(`--config ${f.config} must hold a JSON object`);
    }
  }
  const flags: Record<string, unknown> = {
    port: f.port,
    speed: f.speed,
    stateFile: f.state,
    maxCpu: f["max-cpu"],
    maxRam: f["max-ram"],
    maxDisk: f["max-disk"],
    gateway: f.gateway,
    mainNode: f["main-node"],
    nodes: f.nodes,
    storage: f.storage,
    assignIpStart: f["assign-ip-start"],
    assignIpEnd: f["assign-ip-end"],
    allowIps: f["allow-ips"],
    sshKey: f["ssh-key"],
    imageCache: f["image-cache"],
    disabled: f["disabled-missing"] ? null : f.disabled,
    durationsZero: f["durations-zero"],
    statusLocalOnly: f["status-any-node"] ? false : f["status-local-only"],
    guestShutdownMs: f["guest-shutdown-ms"],
    vmidPick: f["vmid-pick"],
    seed: f.seed,
    measuredRates: f["measured-rates"],
    applyDefaultsFirst: f["apply-defaults-first"],
    log: f.log,
  };
  const merged: Record<string, unknown> = { ...fromFile };
  for (const [k, v] of Object.entries(flags)) if (v !== undefined) merged[k] = v;
  if (f.fault) merged.faults = [...((fromFile.faults as unknown[] | undefined) ?? []), ...f.fault];
  return merged as SimulatorOptions;
}

async function main(): Promise<void> {
  let options: SimulatorOptions | "help";
  try {
    options = parseCli(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (options === "help") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let sim;
  try {
    sim = await startSimulator(options);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
  process.stdout.write(`go-pve-qemu simulator listening on ${sim.url}\n`);
  const stop = (signal: string): void => {
    process.stderr.write(`go-pve-qemu simulator: ${signal}, shutting down\n`);
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

if (require.main === module) void main();
