// A real PostgreSQL server for a test: Debian's `postgresql` binaries,
// initdb and pg_ctl in a temporary folder, listening on a free loopback port,
// no systemd, trust authentication on loopback only. PostgreSQL refuses to
// run as root, so as root the cluster belongs to an unprivileged user
// (`nobody`) and its commands run through runuser.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./ports";

const run = promisify(execFile);
const DB_USER = "pulumi";
const DB_NAME = "pulumi";

export interface Postgres {
  /** postgres://pulumi@127.0.0.1:<port>/pulumi?sslmode=disable */
  url: string;
  /** Runs SQL through psql and answers its unaligned output. */
  sql(query: string): Promise<string>;
  stop(): Promise<void>;
}

/** Where the server binaries are, or why PostgreSQL cannot run here. */
export function findPostgres(): { bin: string } | { reason: string } {
  const candidates = [
    process.env.PG_BIN,
    ...(fs.existsSync("/usr/lib/postgresql")
      ? fs
          .readdirSync("/usr/lib/postgresql")
          .sort((a, b) => Number(b) - Number(a))
          .map((v) => `/usr/lib/postgresql/${v}/bin`)
      : []),
  ].filter((d): d is string => typeof d === "string");
  for (const bin of candidates) {
    if (["initdb", "pg_ctl", "postgres", "psql"].every((b) => fs.existsSync(path.join(bin, b)))) return { bin };
  }
  return {
    reason:
      "PostgreSQL server binaries not found (no /usr/lib/postgresql/<version>/bin, PG_BIN unset); " +
      "install Debian's postgresql package (.ci/run does: apt-get install -y postgresql)",
  };
}

export async function startPostgres(bin: string): Promise<Postgres> {
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-pg-"));
  const data = path.join(dir, "data");
  if (asRoot) {
    fs.chmodSync(dir, 0o755);
    await run("chown", ["nobody:nogroup", dir]);
  }
  /** A server command, as the cluster's owner. */
  const pg = (cmd: string, args: string[]) =>
    asRoot
      ? run("runuser", ["-u", "nobody", "--", path.join(bin, cmd), ...args], { cwd: dir })
      : run(path.join(bin, cmd), args, { cwd: dir });

  await pg("initdb", ["-D", data, "-U", DB_USER, "-A", "trust", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  const logFile = path.join(dir, "server.log");
  await pg("pg_ctl", [
    "-D",
    data,
    "-l",
    logFile,
    "-w",
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    "start",
  ]);
  const psql = (query: string, db = DB_NAME) =>
    run(path.join(bin, "psql"), ["-h", "127.0.0.1", "-p", String(port), "-U", DB_USER, "-d", db, "-Atc", query]);
  await psql(`CREATE DATABASE ${DB_NAME}`, "postgres");
  return {
    url: `postgres://${DB_USER}@127.0.0.1:${port}/${DB_NAME}?sslmode=disable`,
    sql: async (query) => (await psql(query)).stdout.trim(),
    stop: async () => {
      await pg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
