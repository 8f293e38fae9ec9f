// The command line of `recover`, checked before the stack is touched, each
// problem naming its flag so that the user knows what to fix.
import { UsageError, parseFlags } from "./parse-flags";

export const RECOVER_USAGE = `usage: go-pve-qemu-pulumi recover [--stack NAME] [--cwd DIR] [--adopt URN=VMID]... [--discard URN]... [--after]

Before \`pulumi up\`: resolves the stack's pending Vm creates (what an interrupted
\`pulumi up\` began), on evidence alone, so that the up takes their VMs over instead
of installing them again. Exits 3 when one needs your word (--adopt or --discard).
With --after (after a successful up): clears the pending creates the up recorded.

  --stack NAME        the stack (default: the selected one)
  --cwd DIR           the Pulumi project's folder (default: this one)
  --adopt URN=VMID    the VM that is this resource's (a name you gave, the server
                      picking the VMID); repeatable
  --discard URN       this resource's interrupted create made no VM; repeatable
  --after             clear the pending creates of resources now in state
  --help              this text`;

export interface RecoverCommand {
  stack?: string;
  cwd: string;
  adopt: Record<string, number>;
  discard: string[];
  after: boolean;
  help: boolean;
}

export function parseRecover(argv: string[]): RecoverCommand {
  const values = parseFlags(
    argv,
    {
      stack: { type: "string" },
      cwd: { type: "string" },
      adopt: { type: "string", multiple: true },
      discard: { type: "string", multiple: true },
      after: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    RECOVER_USAGE,
  );
  const adopt: Record<string, number> = {};
  for (const pair of values.adopt ?? []) {
    const m = /^(urn:pulumi:.+)=(\d+)$/.exec(pair);
    if (!m)
      throw new UsageError(`--adopt ${JSON.stringify(pair)}: expected <urn>=<vmid>, e.g. 'urn:pulumi:...::i3=104'`);
    adopt[m[1]!] = Number(m[2]);
  }
  for (const urn of values.discard ?? []) {
    if (!urn.startsWith("urn:pulumi:"))
      throw new UsageError(`--discard ${JSON.stringify(urn)}: expected a resource's URN`);
  }
  return {
    ...(values.stack ? { stack: values.stack } : {}),
    cwd: values.cwd ?? process.cwd(),
    adopt,
    discard: values.discard ?? [],
    after: values.after === true,
    help: values.help === true,
  };
}
