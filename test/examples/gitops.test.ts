// examples/gitops: the workflow is valid YAML with a preview job on pull
// requests and an up job on pushes to main, both wired to pipeline.sh and the
// secrets; and the program previews cleanly against the simulator through
// try-local.sh, the documented local run of the same pipeline.
import * as fs from "node:fs";
import * as path from "node:path";
import { EXAMPLES, listVms, newSandbox, run, tail, type Sandbox } from "./support";

// js-yaml (a devDependency; the version @pulumi/pulumi uses) has no type declarations here.
const yaml: { load(text: string): unknown } = require("js-yaml");

const GITOPS = path.join(EXAMPLES, "gitops");

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
interface Job {
  if?: string;
  "runs-on"?: unknown;
  permissions?: Record<string, string>;
  steps: Step[];
}
interface Workflow {
  on: { pull_request?: { branches?: string[] }; push?: { branches?: string[] } };
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

describe("workflow.yml", () => {
  const workflow = yaml.load(fs.readFileSync(path.join(GITOPS, "workflow.yml"), "utf8")) as Workflow;
  const jobs = Object.values(workflow.jobs);
  const runs = (job: Job) => job.steps.map((s) => s.run ?? "").join("\n");
  const previewJob = jobs.find((j) => /pipeline\.sh preview/.test(runs(j)));
  const upJob = jobs.find((j) => /pipeline\.sh up/.test(runs(j)));

  test("is triggered by pull requests and by pushes to main", () => {
    expect(workflow.on.pull_request?.branches).toContain("main");
    expect(workflow.on.push?.branches).toEqual(["main"]);
  });

  test("previews on pull requests and posts the diff", () => {
    expect(previewJob).toBeDefined();
    expect(previewJob!.if).toMatch(/github\.event_name == 'pull_request'/);
    expect(previewJob!.if).not.toMatch(/push/);
    expect(previewJob!.permissions?.["pull-requests"]).toBe("write");
    const post = previewJob!.steps.find((s) => s.uses?.startsWith("actions/github-script"));
    expect(String(post?.with?.script)).toMatch(/createComment/);
    expect(post?.env?.PREVIEW_FILE).toBe(
      previewJob!.steps.find((s) => /pipeline\.sh preview/.test(s.run ?? ""))?.env?.PREVIEW_FILE,
    );
  });

  test("runs up on pushes to main only", () => {
    expect(upJob).toBeDefined();
    expect(upJob).not.toBe(previewJob);
    expect(upJob!.if).toMatch(/github\.event_name == 'push'/);
    expect(upJob!.if).toMatch(/github\.ref == 'refs\/heads\/main'/);
    expect(upJob!.if).not.toMatch(/pull_request/);
  });

  test.each([
    ["preview", () => previewJob],
    ["up", () => upJob],
  ])("the %s job installs with npm ci and the engine script, and gets the secrets", (_name, job) => {
    const j = job()!;
    const text = runs(j);
    expect(text).toMatch(/^npm ci\b/m);
    expect(text).toMatch(/bash scripts\/ensure-engine\.sh/);
    expect(text.indexOf("npm ci")).toBeLessThan(text.indexOf("pipeline.sh"));
    const pulumiStep = j.steps.find((s) => /pipeline\.sh/.test(s.run ?? ""))!;
    expect(pulumiStep.env?.PULUMI_CONFIG_PASSPHRASE).toBe("${{ secrets.PULUMI_CONFIG_PASSPHRASE }}");
    expect(pulumiStep.env?.GO_PVE_QEMU_TOKEN).toBe("${{ secrets.GO_PVE_QEMU_TOKEN }}");
    expect(workflow.env?.PULUMI_BACKEND_URL).toBeDefined();
  });
});

test("Pulumi.prod.yaml names the server and a fleet", () => {
  const stackConfig = yaml.load(fs.readFileSync(path.join(GITOPS, "Pulumi.prod.yaml"), "utf8")) as {
    config: Record<string, unknown>;
  };
  expect(stackConfig.config["goPveQemu:endpoint"]).toMatch(/^https?:\/\//);
  expect(Object.keys(stackConfig.config["pve-gitops:vms"] as object).sort()).toEqual(["db", "runner", "web"]);
});

describe("against the simulator", () => {
  let box: Sandbox;
  beforeAll(async () => {
    box = await newSandbox("gitops-test");
  });
  afterAll(async () => {
    await box?.dispose();
  });

  test("try-local.sh preview: the program previews cleanly and makes nothing", async () => {
    const state = path.join(box.scratch, "gitops-local");
    const work = box.copyExample("gitops"); // a folder in the repository for try-local's copy
    const result = await run("bash", [path.join(GITOPS, "try-local.sh"), "preview"], {
      env: {
        GO_PVE_QEMU_ENDPOINT: box.sim.url,
        GO_PVE_QEMU_ENGINE_BIN: box.env.GO_PVE_QEMU_ENGINE_BIN,
        GITOPS_LOCAL_STATE: state,
        GITOPS_LOCAL_WORK: work,
        PULUMI_CONFIG_PASSPHRASE: "gitops-test",
      },
    });
    if (result.code !== 0) throw new Error(`exit code ${result.code}\n${tail(result.output)}`);
    const preview = fs.readFileSync(path.join(state, "preview.txt"), "utf8");
    expect(preview).toMatch(/\+ 5 to create/); // the stack, its identity + db, web, runner
    for (const vm of ["db", "web", "runner"]) expect(preview).toContain(`goPveQemu:Vm::${vm}]`);
    expect(preview).not.toMatch(/error:/i);
    expect(await listVms(box.sim.url)).toEqual([]);
    // The committed stack file is untouched: the endpoint override went into the copy.
    expect(fs.readFileSync(path.join(GITOPS, "Pulumi.prod.yaml"), "utf8")).not.toContain(box.sim.url);
    expect(fs.readFileSync(path.join(work, "Pulumi.prod.yaml"), "utf8")).toContain(box.sim.url);
  });
});
