// What the commands behind the server print: `qm` failures (pasted into error
// texts verbatim, trailing newline included), `qm migrate` task logs and the
// OS init script's output (streamed line by line). Lines marked stderr go
// through the server's rule: a line containing "Error:" or "Failed:" is shown
// as "  Error: <line>", any other as "  <line>".
import { taskTimestamp } from "./clock";

export interface OutLine {
  text: string;
  stderr?: boolean;
}

/** runCommandSSE's formatting of one output line. */
export function shown(line: OutLine): string {
  if (line.stderr && (line.text.includes("Error:") || line.text.includes("Failed:"))) return `  Error: ${line.text}`;
  return `  ${line.text}`;
}

/** A busy VM: the commonest `qm` failure, as CombinedOutput gives it. */
export function lockTimeout(vmid: number): string {
  return (
    `exit status 255, output: trying to acquire lock...\n` +
    `can't lock file '/var/lock/qemu-server/lock-${vmid}.conf' - got timeout\n`
  );
}

/** `qm shutdown` when the guest ignored the power button until qm's own timeout. */
export const POWERDOWN_TIMEOUT = "exit status 255, output: VM quit/powerdown failed - got timeout\n";

/**
 * A per-VM `qm` call for a VMID with no config anywhere: the server finds no
 * node for it in /etc/pve, so it runs `ssh root@ qm ...` with an empty host
 * (getVMIDsNode + getCommand). ssh's own line ends in CRLF.
 */
export const SSH_NO_HOST_LINE = "ssh: Could not resolve hostname : Name or service not known";
export const SSH_NO_HOST = `exit status 255, output: ${SSH_NO_HOST_LINE}\r\n`;

/** `qm disk resize` with a size that is not `\+?\d+(\.\d+)?[KMGT]?`. */
export const RESIZE_BAD_SIZE =
  "exit status 255, output: 400 Parameter verification failed.\n" +
  "size: value does not match the regex pattern\n" +
  "qm disk resize <vmid> <disk> <size> [OPTIONS]\n";

export interface MigrationInfo {
  vmid: number;
  target: string;
  targetIp: string;
  storage: string;
  clockStart: string;
  /** Simulated ms since the flow began, at the first line. */
  at: number;
  /** Simulated duration of the whole migration. */
  totalMs: number;
}

function hms(ms: number): string {
  const s = Math.round(ms / 1000);
  const p = (n: number): string => String(n).padStart(2, "0");
  return `${p(Math.floor(s / 3600))}:${p(Math.floor(s / 60) % 60)}:${p(s % 60)}`;
}

/** The task log of a successful offline migration with local disks (ZFS). */
export function migrationLines(m: MigrationInfo): OutLine[] {
  const disk = `${m.storage}:vm-${m.vmid}-disk-0`;
  const zvol = `rpool/data/vm-${m.vmid}-disk-0@__migration__`;
  const body = [
    `starting migration of VM ${m.vmid} to node '${m.target}' (${m.targetIp})`,
    `found local disk '${m.storage}:vm-${m.vmid}-cloudinit' (attached)`,
    `found local disk '${disk}' (attached)`,
    `copying local disk images`,
    `full send of ${zvol} estimated size is 1.75G`,
    `total estimated size is 1.75G`,
    `TIME        SENT   SNAPSHOT ${zvol}`,
    `00:00:01    412M   ${zvol}`,
    `00:00:02    896M   ${zvol}`,
    `00:00:03   1.35G   ${zvol}`,
    // Remote output comes back quoted: the kind of line that breaks the
    // server's hand-made JSON.
    `[${m.target}] received "${zvol}" (1.75G)`,
    `successfully imported '${disk}'`,
    `volume '${disk}' is '${disk}' on the target`,
    `migration finished successfully (duration ${hms(m.totalMs)})`,
  ];
  return stamp(body, m);
}

/** A migration that breaks while copying the disk (the task log, then the CLI's own line). */
export function migrationAbortedLines(m: MigrationInfo): OutLine[] {
  const disk = `${m.storage}:vm-${m.vmid}-disk-0`;
  const body = [
    `starting migration of VM ${m.vmid} to node '${m.target}' (${m.targetIp})`,
    `found local disk '${disk}' (attached)`,
    `copying local disk images`,
    `ERROR: migration aborted (duration ${hms(m.totalMs)}): storage migration for '${disk}' to storage ` +
      `'${m.storage}' failed - command 'set -o pipefail && pvesm export ${disk} zfs - -with-snapshots 0 ` +
      `-snapshot __migration__ | /usr/bin/ssh -e none -o 'BatchMode=yes' -o 'HostKeyAlias=${m.target}' ` +
      `root@${m.targetIp} -- pvesm import ${disk} zfs - -with-snapshots 0 -snapshot __migration__ ` +
      `-delete-snapshot __migration__ -allow-rename 1' failed: exit code 255`,
  ];
  return [...stamp(body, m), { text: "migration aborted", stderr: true }];
}

/** `qm migrate` refusing its arguments (printed by the CLI on stderr, no task log). */
export function migrationRefusedLines(reason: "local" | "unknown", target: string): OutLine[] {
  if (reason === "unknown") return [{ text: `no such cluster node '${target}'`, stderr: true }];
  return [
    { text: "400 Parameter verification failed.", stderr: true },
    { text: "target: target is local node.", stderr: true },
    { text: "qm migrate <vmid> <target> [OPTIONS]", stderr: true },
  ];
}

function stamp(body: string[], m: MigrationInfo): OutLine[] {
  const step = body.length > 1 ? m.totalMs / (body.length - 1) : 0;
  return body.map((text, i) => ({ text: `${taskTimestamp(m.clockStart, m.at + i * step)} ${text}` }));
}

const APT_INSTALL =
  "language-pack-en ufw rsync wget curl tar zip unzip tree make nano vim git screen tmux sysbench stress-ng htop iotop bc fio qemu-guest-agent";

const MIRRORS: Record<string, string> = {
  "debian/11": "http://deb.debian.org/debian bullseye",
  "debian/12": "http://deb.debian.org/debian bookworm",
  "debian/13": "http://deb.debian.org/debian trixie",
  "ubuntu/20.04": "http://tw.archive.ubuntu.com/ubuntu focal",
  "ubuntu/22.04": "http://tw.archive.ubuntu.com/ubuntu jammy",
  "ubuntu/24.04": "http://tw.archive.ubuntu.com/ubuntu noble",
};

/** The init script's output (sh/<os>_<version>.sh), in order. */
export function initScriptLines(os: string, version: string): OutLine[] {
  const rocky = os === "rockylinux";
  const pkg: OutLine[] = rocky
    ? [
        { text: "upgrading packages" },
        { text: `Rocky Linux ${version} - BaseOS                        2.1 MB/s | 2.3 MB     00:01` },
        { text: "Dependencies resolved." },
        { text: "Nothing to do." },
        { text: "Complete!" },
        { text: "install EPEL repository" },
        { text: "Installed:" },
        { text: `  epel-release-${version}-9.el${version}.noarch` },
        { text: "installing basic packages" },
        { text: "Complete!" },
      ]
    : [
        { text: "editing sources.list" },
        { text: "updateing packages" },
        { text: `Hit:1 ${MIRRORS[`${os}/${version}`] ?? `http://deb.debian.org/debian ${version}`} InRelease` },
        { text: "Reading package lists..." },
        { text: "upgrading packages" },
        { text: "Reading package lists..." },
        { text: "Building dependency tree..." },
        { text: "Calculating upgrade..." },
        { text: "0 upgraded, 0 newly installed, 0 to remove and 0 not upgraded." },
        { text: "installing basic packages" },
        { text: `The following NEW packages will be installed: ${APT_INSTALL}` },
        { text: "Setting up qemu-guest-agent (1:8.2.2+ds-0ubuntu1) ..." },
      ];
  return [
    { text: "change root password" },
    { text: "disable password change" },
    { text: "remove passwd" },
    { text: "waiting for package manager to be available" },
    ...pkg,
    { text: "enable qemu-guest-agent" },
    { text: "Synchronizing state of qemu-guest-agent.service with SysV service script." },
    { text: "setting locale to en_US.UTF-8" },
    // perl's locale warning: double quotes and raw tabs, invalid JSON twice over.
    { text: "perl: warning: Setting locale failed.", stderr: true },
    { text: "perl: warning: Please check that your locale settings:", stderr: true },
    { text: "\tLANGUAGE = (unset),", stderr: true },
    { text: "\tLC_ALL = (unset),", stderr: true },
    { text: '\tLANG = "en_US.UTF-8"', stderr: true },
    { text: "    are supported and installed on your system.", stderr: true },
    { text: 'perl: warning: Falling back to the standard locale ("C").', stderr: true },
    { text: "Generation complete." },
    { text: "setting timezone to Asia/Taipei" },
    { text: "setting sysctl" },
    { text: "net.ipv4.icmp_echo_ignore_all = 1" },
    { text: "fs.inotify.max_user_watches = 524288" },
    { text: "updating GRUB configuration" },
    { text: "Sourcing file `/etc/default/grub'", stderr: true },
    { text: "Generating grub configuration file ...", stderr: true },
    { text: "done", stderr: true },
    { text: "creating swap file" },
    { text: "Setting up swapspace version 1, size = 2 GiB (2147479552 bytes)" },
    { text: "no label, UUID=3f1b0c2e-8d3a-4c41-9f0e-5b6a7c8d9e0f" },
    { text: "/swapfile none swap sw 0 0" },
    { text: "setting up script sysinfo" },
    // curl's progress meter redraws itself with carriage returns.
    {
      text: "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current",
      stderr: true,
    },
    {
      text:
        "\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0" +
        "\r100  4375  100  4375    0     0  21334      0 --:--:-- --:--:-- --:--:-- 21341",
      stderr: true,
    },
    { text: "#PasswordAuthentication no" },
    { text: "PS1='\\u@\\h:\\w\\$ '" },
    { text: "cleaning up" },
  ];
}

/** The init script dying on a package that will not install (set -e). */
export function initScriptFailureLines(os: string, version: string): OutLine[] {
  const all = initScriptLines(os, version);
  const upTo = all.findIndex((l) => l.text === "installing basic packages");
  const head = all.slice(0, upTo + 1);
  if (os === "rockylinux") return [...head, { text: "Error: Unable to find a match: sysbench", stderr: true }];
  return [...head, { text: "E: Unable to locate package sysbench", stderr: true }];
}
