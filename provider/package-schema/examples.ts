// The example every SDK's Vm documentation shows: one VM, its IP an output,
// in TypeScript, Python, Go and YAML, inside Pulumi's `{{% examples %}}`
// shortcodes, from which each language's code generator keeps its own block
// (and the Registry shows all four). Each program is, to the byte, one of
// docs/_index.md's, and so one of the README's, which run through the engine
// (test/package/registry-docs.test.ts holds them equal). The YAML program
// names the release it documents where the README says `<version>`, and the
// schema's download URL.

const TYPESCRIPT = `// index.ts, on the SDK (npm install @go-pve-qemu/pulumi)
import * as gopveqemu from "@go-pve-qemu/pulumi";
const web = new gopveqemu.Vm("web", { os: "ubuntu", version: "24.04", cpu: 2 });
export const ip = web.ip;
`;

const PYTHON = `# __main__.py
import pulumi
import pulumi_gopveqemu as gopveqemu
web = gopveqemu.Vm("web", os="ubuntu", version="24.04", cpu=2)
pulumi.export("ip", web.ip)
`;

const GO = `// main.go
package main
import (
	"github.com/go-pve-qemu/pulumi-gopveqemu/sdk/go/gopveqemu"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)
func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		web, err := gopveqemu.NewVm(ctx, "web", &gopveqemu.VmArgs{Os: gopveqemu.OsUbuntu, Version: pulumi.String("24.04"), Cpu: pulumi.Int(2)})
		if err == nil {
			ctx.Export("ip", web.Ip)
		}
		return err
	})
}
`;

const YAML = `name: my-vms
runtime: yaml
resources:
  web:
    type: gopveqemu:Vm
    properties:
      os: ubuntu
      version: "24.04"
      cpu: 2
    options:
      version: <version>
      pluginDownloadURL: https://github.com/go-pve-qemu/pulumi-gopveqemu/releases/download/v<version>
outputs:
  ip: \${web.ip}
`;

/** Each language's program as docs/_index.md shows it, by the fence the schema's docs use. */
const VM_EXAMPLES = { typescript: TYPESCRIPT, python: PYTHON, go: GO, yaml: YAML } as const;

/**
 * The examples section of the Vm's description, each program passed through
 * `named` (the YAML one's `<version>` and download URL, which the schema knows).
 */
export function vmExamples(named: (code: string) => string): string {
  const blocks = Object.entries(VM_EXAMPLES).map(([lang, code]) => `\`\`\`${lang}\n${named(code)}\`\`\``);
  return [
    "{{% examples %}}",
    "## Example Usage",
    "",
    "{{% example %}}",
    "### One VM, its IP an output",
    "",
    ...blocks,
    "{{% /example %}}",
    "{{% /examples %}}",
  ].join("\n");
}
