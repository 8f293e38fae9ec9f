// The resource's inputs: one zod schema, the type inferred from it. Each
// property's description is its zod metadata, which the package schema (and
// so every generated SDK) carries; the JSDoc beside it repeats it word for
// word for editors, which show JSDoc, not metadata, for VmArgs (the schema
// script's --check holds the two equal). Limits and allowed values live with
// the input rules, and the README's input table is generated from both.
import { z } from "zod";
import { OsSchema } from "../../client";
import {
  LIMITS,
  show,
  PASSWORD_MIN,
  isHttpUrl,
  carriesCredentials,
  withoutCredentials,
  CREDENTIALS_HELP,
  intField,
  boolField,
  labelField,
  LINUX_USER,
  SSH_KEY,
  CONTROL,
  osList,
} from "./input-rules";

// ---- the schema ---------------------------------------------------------------

const ConnectionInputSchema = z
  .object(
    {
      /** Base URL, e.g. http://10.0.0.5:8080. Default: the provider's endpoint (stack config goPveQemu:endpoint; gopveqemu:endpoint for the resource plugin), else GO_PVE_QEMU_ENDPOINT. */
      endpoint: z
        .string({
          error: (iss) =>
            `connection.endpoint: ${show(iss.input)} is not a string; give an http(s) URL such as http://10.0.0.5:8080`,
        })
        .refine(isHttpUrl, {
          error: (iss) =>
            `connection.endpoint: ${show(withoutCredentials(String(iss.input)))} is not an http(s) URL; give one such as http://10.0.0.5:8080`,
        })
        .refine((s) => !carriesCredentials(s), {
          error: (iss) => `connection.endpoint: ${show(withoutCredentials(String(iss.input)))}: ${CREDENTIALS_HELP}`,
        })
        .optional()
        .meta({
          description:
            "Base URL, e.g. http://10.0.0.5:8080. Default: the provider's endpoint (stack config goPveQemu:endpoint; gopveqemu:endpoint for the resource plugin), else GO_PVE_QEMU_ENDPOINT.",
        }),
      /** Bearer token for a server behind an authenticating proxy (secret; never shown). Default: the provider's token (goPveQemu:token; gopveqemu:token for the resource plugin), else GO_PVE_QEMU_TOKEN. */
      token: z.string({ error: "connection.token: must be a string (its value is not shown)" }).optional().meta({
        description:
          "Bearer token for a server behind an authenticating proxy (secret; never shown). Default: the provider's token (goPveQemu:token; gopveqemu:token for the resource plugin), else GO_PVE_QEMU_TOKEN.",
        secret: true,
      }),
      /** Extra headers sent with every request (values never shown). */
      headers: z
        .record(
          z.string(),
          z.string({ error: "connection.headers: must be an object of string values (values not shown)" }),
          {
            error: "connection.headers: must be an object of string values (values not shown)",
          },
        )
        .optional()
        .meta({ description: "Extra headers sent with every request (values never shown).", secret: true }),
      /** PEM CA certificate(s) to trust for an https endpoint. */
      caCert: z
        .string({
          error: (iss) =>
            `connection.caCert: ${show(iss.input)} is not a string; give PEM text (-----BEGIN CERTIFICATE-----...)`,
        })
        .refine((s) => s.includes("-----BEGIN"), {
          error: "connection.caCert: is not PEM text; give one or more -----BEGIN CERTIFICATE----- blocks",
        })
        .optional()
        .meta({ description: "PEM CA certificate(s) to trust for an https endpoint." }),
    },
    {
      error: (iss) => `connection: ${show(iss.input)} is not an object; allowed keys endpoint, token, headers, caCert`,
    },
  )
  .meta({ title: "Connection" });

// Limits and allowed values are not repeated in the descriptions: they are in
// LIMITS and the schema, and the README's input table is generated from them
// (the input-table script).
export const VmInputsSchema = z.object({
  /** The operating system. Changing it replaces the VM. */
  os: z
    .enum(OsSchema.options, {
      error: (iss) =>
        iss.input === undefined
          ? `os: is required; allowed ${osList}`
          : `os: ${show(iss.input)} is not supported; allowed ${osList}`,
    })
    .meta({ description: "The operating system. Changing it replaces the VM.", title: "Os" }),
  /** The OS version (e.g. "24.04" for ubuntu). Changing it replaces the VM. */
  version: z
    .string({
      error: (iss) =>
        iss.input === undefined
          ? 'version: is required (e.g. "24.04" for ubuntu)'
          : `version: ${show(iss.input)} is not a string`,
    })
    .meta({ description: 'The OS version (e.g. "24.04" for ubuntu). Changing it replaces the VM.' }),
  /** Name prefix; the server names the VM `<name>-<vmid>`. Changing it replaces the VM. */
  name: labelField(
    "name",
    LIMITS.nameMax,
    ` (the server appends "-<vmid>", and the whole name must fit a 63-character DNS label)`,
  )
    .optional()
    .meta({ description: "Name prefix; the server names the VM `<name>-<vmid>`. Changing it replaces the VM." }),
  /** Pinned VMID, also the last octet of the VM's IP. Default: the server picks one. Changing it replaces the VM. */
  vmid: intField("vmid", LIMITS.vmid.min, LIMITS.vmid.max, " (the VMID is also the last octet of the VM's IP)")
    .optional()
    .meta({
      description:
        "Pinned VMID, also the last octet of the VM's IP. Default: the server picks one. Changing it replaces the VM.",
    }),
  /** The Proxmox node to run on (checked against the cluster at preview). Changing it migrates the VM. */
  node: labelField("node", LIMITS.nodeMax, " (a Proxmox node name)").optional().meta({
    description: "The Proxmox node to run on (checked against the cluster at preview). Changing it migrates the VM.",
  }),
  /** vCPUs. Updated in place (the VM is shut down and started again). */
  cpu: intField("cpu", LIMITS.cpu.min, LIMITS.cpu.max)
    .optional()
    .meta({ description: "vCPUs. Updated in place (the VM is shut down and started again)." }),
  /** Memory in MB. Updated in place. */
  memoryMb: intField("memoryMb", LIMITS.memoryMb.min, LIMITS.memoryMb.max)
    .optional()
    .meta({ description: "Memory in MB. Updated in place." }),
  /** Disk in GB. Grows in place; cannot shrink. */
  diskGb: intField("diskGb", LIMITS.diskGb.min, undefined)
    .optional()
    .meta({ description: "Disk in GB. Grows in place; cannot shrink." }),
  /** Login user (default by OS). Changing it replaces the VM. */
  user: z
    .string({ error: (iss) => `user: ${show(iss.input)} is not a string` })
    .refine((s) => LINUX_USER.test(s) && s.length <= LIMITS.userMax, {
      error: (iss) =>
        `user: ${show(iss.input)} is not a valid Linux user name; use lowercase letters, digits, "_" and "-", starting with a letter or "_", at most ${LIMITS.userMax} characters`,
    })
    .optional()
    .meta({ description: "Login user (default by OS). Changing it replaces the VM." }),
  /** Login password (secret; its value is never shown). Default: a generated one, a secret output. Changing it replaces the VM. */
  password: z
    .string({ error: "password: must be a string (its value is not shown)" })
    .min(PASSWORD_MIN, {
      error: `password: must be at least ${PASSWORD_MIN} characters (omit it to get a generated one)`,
    })
    .refine((s) => !CONTROL.test(s), { error: "password: must not contain newlines or control characters" })
    .optional()
    .meta({
      description:
        "Login password (secret; its value is never shown). Default: a generated one, a secret output. Changing it replaces the VM.",
      secret: true,
    }),
  /**
   * false: the password never reaches Pulumi's state, encrypted or not; state
   * keeps a salted hash of it, so that a changed password is still a change.
   * A password must then be given (none is generated). Default true.
   */
  storePassword: boolField("storePassword").optional().meta({
    description:
      "false: the password never reaches Pulumi's state, encrypted or not; state keeps a salted hash of it, so that a changed password is still a change. A password must then be given (none is generated). Default true.",
  }),
  /** One OpenSSH public key line for the user. Changing it replaces the VM. */
  sshPublicKey: z
    .string({ error: (iss) => `sshPublicKey: ${show(iss.input)} is not a string` })
    .refine((s) => SSH_KEY.test(s.trim()), {
      error: 'sshPublicKey: is not one OpenSSH public key line; give e.g. "ssh-ed25519 AAAAC3... me@host"',
    })
    .optional()
    .meta({ description: "One OpenSSH public key line for the user. Changing it replaces the VM." }),
  /** Desired power state (default true). */
  running: boolField("running").optional().meta({ description: "Desired power state (default true)." }),
  /** Any change reboots a running VM. */
  rebootTriggers: z
    .array(
      z.string({
        error: (iss) => `rebootTriggers: item ${show(iss.input)} is not a string; allowed a list of strings`,
      }),
      {
        error: (iss) => `rebootTriggers: ${show(iss.input)} is not a list; allowed a list of strings`,
      },
    )
    .optional()
    .meta({ description: "Any change reboots a running VM." }),
  /** Where and how to reach the server; the one a VM was created with is kept for refresh and delete. */
  connection: ConnectionInputSchema.optional().meta({
    description: "Where and how to reach the server; the one a VM was created with is kept for refresh and delete.",
    secret: true,
  }),
  /** When an install fails after the VM was made: true destroys it at once; false (default) keeps it in state. */
  destroyOnCreateFailure: boolField("destroyOnCreateFailure").optional().meta({
    description:
      "When an install fails after the VM was made: true destroys it at once; false (default) keeps it in state.",
  }),
  /**
   * Keep a VM whose install did not finish as it is. By default the next `up`
   * replaces such a VM (its initialisation may never have run).
   */
  keepIncompleteInstall: boolField("keepIncompleteInstall").optional().meta({
    description:
      "Keep a VM whose install did not finish as it is. By default the next `up` replaces such a VM (its initialisation may never have run).",
  }),
  /**
   * The rollout group this VM belongs to: the provider setting downtimeBudgets
   * caps how many VMs of one group an update may have down at once, and a
   * failed VM stops the group's rollout. Never a change of the VM.
   */
  downtimeGroup: labelField("downtimeGroup", 63, " (a name for VMs that may not all be down at once)").optional().meta({
    description:
      "The rollout group this VM belongs to: the provider setting downtimeBudgets caps how many VMs of one group an update may have down at once, and a failed VM stops the group's rollout. Never a change of the VM.",
  }),
  /**
   * false: a change that would shut the running VM down or reboot it (cpu,
   * memoryMb, diskGb, node, rebootTriggers) is refused at preview, before
   * anything reaches the server. Default true.
   */
  allowDowntime: boolField("allowDowntime").optional().meta({
    description:
      "false: a change that would shut the running VM down or reboot it (cpu, memoryMb, diskGb, node, rebootTriggers) is refused at preview, before anything reaches the server. Default true.",
  }),
  /** Take the existing VM with `vmid` under management instead of installing one (import by VMID). */
  adopt: boolField("adopt").optional().meta({
    description: "Take the existing VM with `vmid` under management instead of installing one (import by VMID).",
  }),
});

/**
 * The inputs after check. At preview any value may still be UNKNOWN. With
 * `storePassword: false`, check puts `passwordHash` in place of `password`
 * (never an input of the program's: the checked inputs are what state keeps).
 */
export type VmInputs = DeclaredInputs & { passwordHash?: string };
/** The inputs as a program declares them (the schema's shape). */
export type DeclaredInputs = z.infer<typeof VmInputsSchema>;
export type ConnectionInput = z.infer<typeof ConnectionInputSchema>;

/** Input names, in schema order. */
export const INPUT_KEYS = Object.keys(VmInputsSchema.shape) as Array<keyof DeclaredInputs>;
