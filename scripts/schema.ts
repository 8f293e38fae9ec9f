// The Pulumi package schema of the gopveqemu resource plugin, written from the
// provider's zod schemas (provider/package-schema) to schema/schema.json, the
// file the SDKs are generated from (scripts/gen-sdk.sh).
//
//   node dist/scripts/schema.js           rewrite schema/schema.json
//   node dist/scripts/schema.js --check   fail when it is not current, or when a JSDoc
//                                         and the zod description beside it differ (lint)
//   --out <file>                          another file (tests)
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import * as ts from "typescript";
import { packageSchema } from "../provider/package-schema";
import { ROOT } from "./engine-env";

/**
 * Files whose zod properties carry their description twice: as metadata (the
 * package schema's) and as JSDoc (what editors show for the inferred types).
 */
const DOCUMENTED = ["provider/lifecycle/model/inputs.ts", "provider/cluster/nodes.ts", "provider/cluster/vms.ts"];

/** The schema file's text: the package schema at package.json's version. */
export function schemaText(): string {
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
  return `${JSON.stringify(packageSchema(version), null, 2)}\n`;
}

/** Each property whose JSDoc is not its `.meta({ description })`, as "file: key: ..." lines. */
export function docMismatches(root = ROOT, files = DOCUMENTED): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(
      file,
      fs.readFileSync(path.join(root, file), "utf8"),
      ts.ScriptTarget.ES2022,
      true,
    );
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAssignment(node)) {
        const jsdoc = jsdocOf(node);
        if (jsdoc !== undefined) {
          const meta = metaDescriptionOf(node.initializer);
          if (meta === undefined)
            problems.push(`${file}: ${node.name.getText(source)}: JSDoc but no .meta({ description })`);
          else if (squash(meta) !== squash(jsdoc))
            problems.push(`${file}: ${node.name.getText(source)}: the JSDoc and .meta({ description }) differ`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return problems;
}

function jsdocOf(node: ts.Node): string | undefined {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const text = docs.map((d) => ts.getTextOfJSDocComment(d.comment) ?? "").join(" ");
  return text.trim() === "" ? undefined : text;
}

/** The description of the outermost `.meta({ description: "..." })` of a property's value. */
function metaDescriptionOf(expr: ts.Expression): string | undefined {
  if (!ts.isCallExpression(expr) || !ts.isPropertyAccessExpression(expr.expression)) return undefined;
  if (expr.expression.name.text !== "meta") return undefined;
  const arg = expr.arguments[0];
  if (arg === undefined || !ts.isObjectLiteralExpression(arg)) return undefined;
  for (const p of arg.properties) {
    if (ts.isPropertyAssignment(p) && p.name.getText() === "description" && ts.isStringLiteralLike(p.initializer)) {
      return p.initializer.text;
    }
  }
  return undefined;
}

const squash = (s: string): string => s.replace(/\s+/g, " ").trim();

function main(): void {
  const { values } = parseArgs({
    options: {
      check: { type: "boolean", default: false },
      out: { type: "string", default: path.join(ROOT, "schema", "schema.json") },
    },
  });
  const file = path.resolve(values.out);
  const text = schemaText();
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
  if (values.check) {
    const problems = docMismatches();
    if (current !== text) problems.push(`${file}: not current; run \`npm run schema\` (then \`npm run gen-sdk\`)`);
    for (const p of problems) console.error(p);
    if (problems.length > 0) process.exit(1);
    return;
  }
  if (current !== text) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  console.log(`${file}: ${current === text ? "is current" : "written"}`);
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}
