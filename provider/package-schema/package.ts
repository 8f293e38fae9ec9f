// The Pulumi package schema of `gopveqemu`: the Vm resource, the getNodes
// and getVms functions and the provider's configuration, every type and
// description taken from the zod schemas the provider itself validates with
// (the one source of truth), so that each generated SDK carries the same docs.
import { z } from "zod";
import { NodeInfoSchema, VmInfoSchema } from "../cluster";
import { VmInputsSchema, VmStateSchema } from "../lifecycle";
import { ConfigSchema, ProviderInputsSchema } from "../settings";
import { TypeRegistry, objectSpec } from "./convert";
import { vmExamples } from "./examples";
import type { NamedTypeSpec, ObjectSpec, PropertySpec } from "./convert";
import { DYNAMIC_VM_TYPE, GET_NODES_TOKEN, GET_VMS_TOKEN, PACKAGE, VM_TOKEN } from "../tokens";

// Each SDK's Vm carries the dynamic provider's type (DYNAMIC_VM_TYPE) as an
// alias, so a TypeScript stack that moves its Vms from the dynamic provider
// to the plugin keeps their URNs (the engine matches old state by alias).

/**
 * The parts of Pulumi's PackageSpec this package uses.
 * @public the type of what packageSchema returns, for the plugin that serves it
 */
export interface PackageSpec {
  name: string;
  displayName: string;
  version: string;
  description: string;
  keywords: string[];
  homepage: string;
  repository: string;
  license: string;
  publisher: string;
  pluginDownloadURL: string;
  meta: { moduleFormat: string; supportPack: boolean };
  config: { variables: Record<string, PropertySpec> };
  provider: { description: string; inputProperties: Record<string, PropertySpec> };
  resources: Record<string, ObjectSpecWith>;
  functions: Record<string, { description: string; inputs: ObjectSpec; outputs: ObjectSpec }>;
  types: Record<string, NamedTypeSpec>;
  language: Record<string, Record<string, unknown>>;
}
interface ObjectSpecWith extends ObjectSpec {
  description: string;
  aliases: { type: string }[];
  inputProperties: Record<string, PropertySpec>;
  requiredInputs?: string[];
}

const VM_SUMMARY =
  "A QEMU VM on a Proxmox VE cluster, installed and managed through a go-pve-qemu server: " +
  "`up` installs, resizes, migrates, starts, stops and reboots it, following every stream to its end, " +
  "and fails the deployment on any server error.";

/**
 * Where the engine downloads the plugin's tarball from when a program uses
 * the package and the plugin is not installed: the release's assets on the
 * project's release host, one folder per tag (`v<version>`), each holding
 * `pulumi-resource-gopveqemu-v<version>-<os>-<arch>.tar.gz`.
 */
export function defaultDownloadUrl(version: string): string {
  return `https://github.com/go-pve-qemu/pulumi-gopveqemu/releases/download/v${version}`;
}

/** A README program with the release it documents where it says `<version>`, and its download URL. */
function namedRelease(code: string, version: string, downloadUrl: string): string {
  return code.replace(defaultDownloadUrl("<version>"), downloadUrl).replaceAll("<version>", version);
}

/**
 * The package schema at `version` (the npm package's), whose SDKs tell the
 * engine to fetch the plugin from `downloadUrl` (a release may point elsewhere).
 */
export function packageSchema(version: string, downloadUrl = defaultDownloadUrl(version)): PackageSpec {
  const types = new TypeRegistry(PACKAGE);
  const inputs = objectSpec(VmInputsSchema, "input", types, "Vm inputs");
  const state = objectSpec(VmStateSchema, "output", types, "Vm state");
  const config = objectSpec(ConfigSchema, "output", types, "config").properties;
  const providerInputs = objectSpec(ProviderInputsSchema, "output", types, "provider").properties;
  return {
    name: PACKAGE,
    displayName: "go-pve-qemu",
    version,
    description: "Proxmox QEMU VMs as code, through a go-pve-qemu server.",
    keywords: ["pulumi", "proxmox", "qemu", "go-pve-qemu", "category/infrastructure", "kind/native"],
    homepage: "https://github.com/pardnchiu/go-pve-qemu",
    repository: "https://github.com/go-pve-qemu/pulumi-gopveqemu",
    license: "MIT",
    publisher: "go-pve-qemu",
    pluginDownloadURL: downloadUrl,
    meta: { moduleFormat: "(.*)", supportPack: true },
    config: { variables: config },
    provider: {
      description: "The go-pve-qemu provider: where its server is, and how long each wait may take.",
      inputProperties: providerInputs,
    },
    resources: {
      [VM_TOKEN]: {
        description: `${VM_SUMMARY}\n\n${vmExamples((code) => namedRelease(code, version, downloadUrl))}`,
        aliases: [{ type: DYNAMIC_VM_TYPE }],
        properties: state.properties,
        ...(state.required ? { required: state.required } : {}),
        inputProperties: inputs.properties,
        ...(inputs.required ? { requiredInputs: inputs.required } : {}),
      },
    },
    functions: functionsOf(types),
    types: sorted(types.types),
    language: LANGUAGES,
  };
}

/** getNodes and getVms: a connection in (the Vm's own input), the cluster's list out. */
function functionsOf(types: TypeRegistry): PackageSpec["functions"] {
  const args = z.object({
    connection: VmInputsSchema.shape.connection.meta({
      description: "Where the server is; the provider's endpoint and token, then the environment, when omitted.",
      secret: true,
    }),
  });
  const inputs = objectSpec(args, "input", types, "getNodes/getVms inputs");
  const nodes = z.object({ nodes: z.array(NodeInfoSchema).meta({ description: "The nodes, sorted by name." }) });
  const vms = z.object({ vms: z.array(VmInfoSchema).meta({ description: "The VMs, sorted by VMID." }) });
  return {
    [GET_NODES_TOKEN]: {
      description: "The cluster's nodes, read when the program runs (so preview shows them).",
      inputs,
      outputs: objectSpec(nodes, "output", types, "getNodes"),
    },
    [GET_VMS_TOKEN]: {
      description: "The server's VMs as its list gives them, read when the program runs (so preview shows them).",
      inputs,
      outputs: objectSpec(vms, "output", types, "getVms"),
    },
  };
}

const LANGUAGES: PackageSpec["language"] = {
  nodejs: {
    packageName: "@go-pve-qemu/pulumi",
    packageDescription: "Proxmox QEMU VMs as code, through a go-pve-qemu server (the gopveqemu resource plugin's SDK).",
    dependencies: { "@pulumi/pulumi": "^3.139.0" },
    // The compiler the published package is built with, the same as this repository's (the generator's
    // own defaults are TypeScript 4 and @types/node 20).
    typescriptVersion: "^5.9.3",
    devDependencies: { "@types/node": "^22.20.7" },
  },
  python: { packageName: "pulumi_gopveqemu", pyproject: { enabled: true } },
  go: {
    importBasePath: "github.com/go-pve-qemu/pulumi-gopveqemu/sdk/go/gopveqemu",
    generateResourceContainerTypes: true,
  },
};

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
