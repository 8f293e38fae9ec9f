// Every TypeScript snippet of the README, of docs/*.md, of CONTRIBUTING.md
// (and of the examples' READMEs) as a reader meets it. Each ```ts block is type-checked against the package; each
// one that is a whole program runs as written through the real engine
// against a fresh simulator: `up` installs its VMs (the placement snippet's
// VM on the node it picked, the server's own included), and `destroy` leaves
// the server empty. A block that is no whole program is marked by the comment
// before it, `<!-- snippet: fragment (why) -->`, with `given: a, b` naming what
// its surroundings provide; it is type-checked only. The examples' own
// programs run in test/examples, one test each.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as ts from "typescript";
import { pickEmptiest } from "../../provider/data";
import { readCluster } from "../../provider/cluster";
import { ROOT } from "../../scripts/engine-env";
import { newFleet } from "./harness";
import { installSdk, SDK_PACKAGE } from "./sdk";

jest.setTimeout(300_000);

interface Snippet {
  /** file:line of the block's fence */
  where: string;
  code: string;
  /** the reason, for a block marked as a fragment */
  fragment?: string;
  /** what a fragment's surroundings provide */
  given: string[];
}

const FRAGMENT = /<!--\s*snippet:\s*fragment\s*\(([^)]+)\)\s*(?:;\s*given:\s*([\w\s,]+?))?\s*-->\s*$/;

/** What a fragment's surroundings may provide, by the name its comment gives. */
const GIVEN: Record<string, string> = {
  endpoint: "string",
  prod: 'import("@pulumi/pulumi/automation").Stack',
  workDir: "string",
};

function snippetsOf(file: string): Snippet[] {
  const text = fs.readFileSync(file, "utf8");
  const out: Snippet[] = [];
  for (const m of text.matchAll(/```(?:ts|typescript)\n([\s\S]*?)```/g)) {
    const before = text.slice(0, m.index).trimEnd();
    const marker = FRAGMENT.exec(before.slice(before.lastIndexOf("\n") + 1));
    out.push({
      where: `${path.relative(ROOT, file)}:${text.slice(0, m.index).split("\n").length}`,
      code: m[1]!,
      ...(marker ? { fragment: marker[1]!.trim() } : {}),
      given: marker?.[2]?.split(",").map((g) => g.trim()) ?? [],
    });
  }
  return out;
}

const examples = fs.readdirSync(path.join(ROOT, "examples"), { withFileTypes: true }).filter((d) => d.isDirectory());
/** The user documentation: the README, every page of docs/, and CONTRIBUTING.md. */
const DOCS = [
  path.join(ROOT, "README.md"),
  ...fs
    .readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => path.join(ROOT, "docs", f)),
  path.join(ROOT, "CONTRIBUTING.md"),
];
const SNIPPETS = [
  ...DOCS.flatMap(snippetsOf),
  ...examples
    .map((d) => path.join(ROOT, "examples", d.name, "README.md"))
    .filter((f) => fs.existsSync(f))
    .flatMap(snippetsOf),
];
const programs = SNIPPETS.filter((s) => s.fragment === undefined);
const fragments = SNIPPETS.filter((s) => s.fragment !== undefined);

/** A fragment as a module: its imports on top, the rest in a function, with what its surroundings give declared. */
function fragmentModule(s: Snippet): string {
  const lines = s.code.split("\n");
  const imports = lines.filter((l) => l.startsWith("import "));
  const body = lines.filter((l) => !l.startsWith("import "));
  const declared = s.given.map((name) => {
    if (GIVEN[name] === undefined) throw new Error(`${s.where}: "given: ${name}" has no type in GIVEN`);
    return `declare const ${name}: ${GIVEN[name]};`;
  });
  return [...imports, ...declared, "export async function snippet(): Promise<void> {", ...body, "}", ""].join("\n");
}

describe("the snippets", () => {
  test("are found in every document that has any, and few are fragments, each saying why", () => {
    // A ```ts block the pattern above would miss (another fence spelling) would go unchecked.
    for (const file of DOCS) {
      const fences = (fs.readFileSync(file, "utf8").match(/^```(?:ts|typescript|tsx|js|javascript)\b/gm) ?? []).length;
      expect([path.relative(ROOT, file), snippetsOf(file).length]).toEqual([path.relative(ROOT, file), fences]);
    }
    expect(programs.length).toBeGreaterThanOrEqual(3);
    expect(fragments.map((f) => f.where)).toHaveLength(3);
    for (const f of fragments) expect(f.fragment!.length).toBeGreaterThan(10);
    // the placement snippet is a whole program, run below
    expect(programs.some((p) => p.code.includes("getNodes().apply(pickEmptiest)"))).toBe(true);
  });

  test("every example's program has its own test, which runs it", () => {
    const withProgram = examples.filter((d) => fs.existsSync(path.join(ROOT, "examples", d.name, "index.ts")));
    const tests = fs.readdirSync(path.join(ROOT, "test", "examples"));
    for (const d of withProgram) expect([d.name, tests.some((t) => t.startsWith(`${d.name}`))]).toEqual([d.name, true]);
  });

  test("type-check against the package, programs and fragments alike", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-snippets-"));
    try {
      const files = SNIPPETS.map((s, i) => {
        const file = path.join(dir, `snippet-${i}.ts`);
        fs.writeFileSync(file, s.fragment === undefined ? `${s.code}\nexport {};\n` : fragmentModule(s));
        return { file, where: s.where };
      });
      const program = ts.createProgram(
        files.map((f) => f.file),
        {
          strict: true,
          noEmit: true,
          target: ts.ScriptTarget.ES2022,
          module: ts.ModuleKind.CommonJS,
          moduleResolution: ts.ModuleResolutionKind.Node10,
          esModuleInterop: true,
          skipLibCheck: true,
          types: ["node"],
          typeRoots: [path.join(ROOT, "node_modules", "@types")],
          baseUrl: ROOT,
          paths: {
            "go-pve-qemu-pulumi": [path.join(ROOT, "provider", "index.ts")],
            // The resource plugin's SDK, as generated (sdk/nodejs)
            [SDK_PACKAGE]: [path.join(ROOT, "sdk", "nodejs", "index.ts")],
            "@pulumi/pulumi": [path.join(ROOT, "node_modules", "@pulumi", "pulumi")],
            "@pulumi/pulumi/*": [path.join(ROOT, "node_modules", "@pulumi", "pulumi", "*")],
          },
        },
      );
      // The snippets' own diagnostics: the package's sources are checked by the build.
      const problems = files.flatMap(({ file, where }) => {
        const source = program.getSourceFile(file)!;
        return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map(
          (d) => `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
        );
      });
      expect(problems).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  // One stack per program, each on a fresh simulator, one after the other.
  test.each(programs.map((p) => [p.where, p] as const))("%s runs as written", async (_where, snippet) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-snippet-program-"));
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      "name: readme-snippet\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: index.ts\n",
    );
    fs.writeFileSync(path.join(dir, "index.ts"), snippet.code);
    // A program on the plugin's SDK runs through the plugin, with the SDK in its node_modules.
    const onSdk = snippet.code.includes(`from "${SDK_PACKAGE}"`);
    if (onSdk) installSdk(dir);
    const fleet = await newFleet({ nodes: ["pve1", "pve2"] }, { program: dir, via: onSdk ? "plugin" : "dynamic" });
    try {
      // What getNodes() will read: the node a placement snippet picks.
      const picked = pickEmptiest((await readCluster({ endpoint: fleet.sim.url }, 5000)).nodes);
      const up = await fleet.up();
      expect(up.summary.result).toBe("succeeded");
      const vms = Object.entries(fleet.resources()).filter(([, r]) => r.outputs.vmid !== undefined);
      expect(vms.length).toBeGreaterThan(0);
      for (const [name, r] of vms) {
        expect([name, r.outputs.installComplete, r.outputs.running]).toEqual([name, true, true]);
        expect(fleet.sim.vm(r.outputs.vmid as number)).toMatchObject({ status: "running" });
      }
      expect(fleet.sim.vms()).toHaveLength(vms.length); // nothing half-made left beside them
      if (snippet.code.includes("pickEmptiest")) {
        // On a fresh simulator that is the server's own node: installed there, not refused.
        expect(picked).toBe("pve1");
        expect(vms.map(([, r]) => r.outputs.node)).toEqual([picked]);
        expect(fleet.sim.vm(vms[0]![1].outputs.vmid as number)?.node).toBe(picked);
      }
      await fleet.destroy();
      expect(fleet.sim.vms()).toEqual([]);
    } finally {
      await fleet.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
