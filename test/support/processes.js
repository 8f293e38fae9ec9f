// The processes a test run started, found two ways, because either alone
// misses some: the descendants of a process (a `pulumi` whose parent died is
// adopted by init and leaves that tree), and every process whose environment
// carries a mark (a child started with an environment of its own drops it).
// Used by the test environment (test/support/environment.js: a test file's
// processes) and by scripts/test.sh (the whole run's, after jest).
"use strict";
const fs = require("node:fs");

/** pid -> [ppid, pgid] of every process /proc shows now. */
function processTable() {
  const table = new Map();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name in parentheses may hold spaces and parentheses: the fields follow the last ")".
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z") continue; // a zombie has exited: only its parent's wait is left
      table.set(Number(name), [Number(fields[1]), Number(fields[2])]);
    } catch {
      // gone between the listing and the read
    }
  }
  return table;
}

/** Whether process `pid` was started with `NAME=value` in its environment. */
function carries(pid, entry) {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(entry);
  } catch {
    return false;
  }
}

/** Every live process below `root` or carrying the environment entry `mark` (NAME=value), `root` and `except` left out. */
function started({ root, mark, except = [] }) {
  const table = processTable();
  const found = new Set();
  if (root !== undefined) {
    const children = new Map();
    for (const [pid, [ppid]] of table) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    const todo = [...(children.get(root) ?? [])];
    while (todo.length > 0) {
      const pid = todo.pop();
      found.add(pid);
      todo.push(...(children.get(pid) ?? []));
    }
  }
  if (mark !== undefined) for (const pid of table.keys()) if (carries(pid, mark)) found.add(pid);
  for (const pid of [root, process.pid, ...except]) found.delete(pid);
  return [...found].filter((pid) => table.has(pid));
}

/** What `pid` runs, shortened for a message. */
function commandOf(pid) {
  try {
    const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
    return cmd.length > 160 ? `${cmd.slice(0, 157)}...` : cmd;
  } catch {
    return "(exited)";
  }
}

/** SIGKILL to each process and to the process group it leads, so nothing it started outlives it. */
function killAll(pids) {
  for (const pid of pids) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // not a group leader, or gone already
      }
    }
  }
}

/** The processes `find()` names once they have had `graceMs` to end by themselves, polled. */
async function stillRunning(find, graceMs) {
  const until = Date.now() + graceMs;
  for (;;) {
    const left = find();
    if (left.length === 0 || Date.now() >= until) return left;
    await new Promise((r) => setTimeout(r, 200));
  }
}

module.exports = { started, commandOf, killAll, stillRunning };

// `node test/support/processes.js sweep NAME=value`: after jest, every process
// still carrying the run's mark is named and killed; exit 1 when there was one.
if (require.main === module && process.argv[2] === "sweep") {
  const mark = process.argv[3];
  const left = started({ mark, except: [process.ppid] });
  if (left.length > 0) {
    console.error(`test run: ${left.length} process(es) of this run still running after jest, killed:`);
    for (const pid of left) console.error(`  ${pid} ${commandOf(pid)}`);
    killAll(left);
    process.exit(1);
  }
}
