// What a dynamic provider process observes when a deployment is cancelled,
// measured with the engine this project builds: test/e2e/programs/signal-probe
// is a provider whose create runs 40 s and writes down every signal, stdin
// ending and parent change. This runs `pulumi up` of it and, once the create
// runs, does one of the cases below, then prints what the provider saw, how
// `pulumi` ended and what state recorded. The README's "Failure behaviour"
// table comes from these runs.
//
//   npm run build && node dist/scripts/signal-probe.js <int1|int2|term|kill9|abort> [--answer-on-signal]
//
//   int1   one Ctrl-C (SIGINT to pulumi's process group)
//   int2   two Ctrl-C, 1 s apart
//   term   SIGTERM to pulumi
//   kill9  SIGKILL to pulumi
//   abort  the Automation API's abort (stack.up({ signal }))
//   --answer-on-signal: the create answers at once on the first signal, to see whether the engine still records it
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LocalWorkspace, PulumiCommand } from "@pulumi/pulumi/automation";
import { alive } from "./cli-stack";
import { engineEnv, ensureEngine, ROOT } from "./engine-env";

const CASES = ["int1", "int2", "term", "kill9", "abort"] as const;
type Case = (typeof CASES)[number];

async function main(): Promise<void> {
  const kase = process.argv[2] as Case;
  if (!CASES.includes(kase)) throw new Error(`usage: signal-probe.js <${CASES.join("|")}> [--answer-on-signal]`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-probe-"));
  fs.mkdirSync(path.join(scratch, "backend"));
  const work = fs.mkdtempSync(path.join(ROOT, ".e2e-work", "probe-"));
  fs.cpSync(path.join(ROOT, "test", "e2e", "programs", "signal-probe"), work, { recursive: true });
  const log = path.join(scratch, "probe.log");
  fs.writeFileSync(log, "");
  const env = {
    ...engineEnv({ backendDir: path.join(scratch, "backend"), homeDir: path.join(scratch, "home"), passphrase: "p" }),
    PROBE_LOG: log,
    PROBE_CREATE_MS: "40000",
    PROBE_RETURN_ON_SIGNAL: process.argv.includes("--answer-on-signal") ? "1" : "0",
  };
  const t0 = Date.now();
  const at = () => `[${((Date.now() - t0) / 1000).toFixed(1)}s]`;
  const leftovers: number[] = [];
  const created = async () => {
    while (!fs.readFileSync(log, "utf8").includes('"what":"create"')) await sleep(100);
  };
  execFileSync("pulumi", ["stack", "init", "probe", "--non-interactive"], { cwd: work, env, stdio: "ignore" });
  try {
    if (kase === "abort") {
      const pulumiCommand = await PulumiCommand.get({ root: path.dirname(ensureEngine()), skipVersionCheck: true });
      const stack = await LocalWorkspace.selectStack(
        { stackName: "probe", workDir: work },
        { envVars: env, pulumiCommand },
      );
      const abort = new AbortController();
      void created().then(() => {
        console.log(`${at()} abort()`);
        abort.abort();
      });
      const outcome = await stack.up({ signal: abort.signal }).then(
        () => "succeeded",
        (e: Error) => `failed: ${e.message.split("\n").find((l) => /cancel/i.test(l)) ?? ""}`.trim(),
      );
      console.log(`${at()} up ${outcome}`);
    } else {
      const child = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive"], {
        cwd: work,
        env: { ...process.env, ...env },
        stdio: "ignore",
        detached: true,
      });
      const exited = new Promise<string>((r) => child.on("exit", (code, sig) => r(`${code ?? sig}`)));
      await created();
      const pid = child.pid!;
      // The language host and the provider have process groups of their own; a killed engine leaves them.
      const helpers = execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
        .split("\n")
        .filter(Boolean)
        .map(Number);
      if (kase === "int1" || kase === "int2") {
        console.log(`${at()} SIGINT to pulumi's process group`);
        process.kill(-pid, "SIGINT");
      }
      if (kase === "int2") {
        await sleep(1000);
        console.log(`${at()} SIGINT to pulumi's process group`);
        process.kill(-pid, "SIGINT");
      }
      if (kase === "term") process.kill(pid, "SIGTERM");
      if (kase === "kill9") process.kill(pid, "SIGKILL");
      console.log(`${at()} pulumi exited: ${await exited}`);
      await sleep(2000);
      leftovers.push(...helpers);
    }
    console.log("the provider observed (t: ms since its create began):");
    console.log(fs.readFileSync(log, "utf8").trim());
    const providerPid = Number(/"pid":(\d+)/.exec(fs.readFileSync(log, "utf8"))?.[1]);
    console.log(`the provider process is ${alive(providerPid) ? "STILL RUNNING (killed now)" : "gone"}`);
    if (alive(providerPid)) process.kill(providerPid, "SIGKILL");
    for (const h of leftovers) if (alive(h)) process.kill(-h, "SIGKILL");
    const exported = execFileSync("pulumi", ["stack", "export"], { cwd: work, env, encoding: "utf8" });
    const latest = JSON.parse(exported).deployment as {
      resources?: { type: string }[];
      pending_operations?: unknown[];
    };
    console.log(
      `state: probe resource ${latest.resources?.some((r) => r.type === "pulumi-nodejs:dynamic:Resource") ? "recorded" : "absent"}, ` +
        `pending operations ${latest.pending_operations?.length ?? 0}`,
    );
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
