// Raw HTTP for the simulator tests: exact status, headers and body bytes,
// whether the response ended cleanly or the connection broke, and a simple
// frame splitter (the tests check exact bytes, so splitting on blank lines is
// enough).
import * as http from "node:http";
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from "../../simulator";

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The response ended normally (false: the connection broke mid-body). */
  complete: boolean;
}

export interface RequestOptions {
  body?: string | object;
  headers?: Record<string, string>;
}

export interface OpenStream {
  /** Everything received so far. */
  text(): string;
  /** Resolves once the received text contains `needle`. */
  waitFor(needle: string): Promise<void>;
  /** The whole response; rejects only if no response head arrived. */
  done: Promise<RawResponse>;
  abort(): void;
}

export function open(base: string, method: string, path: string, opts: RequestOptions = {}): OpenStream {
  const url = new URL(path, base);
  const payload =
    opts.body === undefined ? undefined : typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
  let received = "";
  const waiters: Array<{ needle: string; resolve: () => void }> = [];
  const check = (): void => {
    for (const w of [...waiters]) {
      if (received.includes(w.needle)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  let req!: http.ClientRequest;
  const done = new Promise<RawResponse>((resolve, reject) => {
    req = http.request(
      url,
      {
        method,
        agent: false,
        headers: { ...(payload === undefined ? {} : { "Content-Type": "application/json" }), ...opts.headers },
      },
      (res) => {
        res.setEncoding("utf8");
        let finished = false;
        const finish = (complete: boolean): void => {
          if (finished) return;
          finished = true;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: received, complete });
        };
        res.on("data", (chunk: string) => {
          received += chunk;
          check();
        });
        res.on("end", () => finish(true));
        res.on("aborted", () => finish(false));
        res.on("error", () => finish(false));
        res.on("close", () => finish(res.complete));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
  done.catch(() => undefined);
  return {
    text: () => received,
    waitFor: (needle) =>
      received.includes(needle) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ needle, resolve })),
    done,
    abort: () => req.destroy(),
  };
}

export function request(base: string, method: string, path: string, opts: RequestOptions = {}): Promise<RawResponse> {
  return open(base, method, path, opts).done;
}

/** Body split into frames at blank lines (each without its trailing "\n\n"). */
export function frames(body: string): string[] {
  const parts = body.split("\n\n");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}

export interface Ev {
  step: string;
  status: string;
  message: string;
}

/** The JSON events of a stream; frames that do not parse are skipped (as a client must). */
export function events(body: string): Ev[] {
  const out: Ev[] = [];
  for (const f of frames(body)) {
    if (!f.startsWith("data: ")) continue;
    try {
      const v = JSON.parse(f.slice(6)) as Ev;
      if (typeof v.step === "string") out.push(v);
    } catch {
      // unescaped command output
    }
  }
  return out;
}

/** "step|status|message" lines: compact to compare. */
export function lines(body: string): string[] {
  return events(body).map((e) => `${e.step}|${e.status}|${e.message}`);
}

export const ev = (step: string, status: string, message: string): string =>
  'data: {"step":"' + step + '","status":"' + status + '","message":"' + message + '"}';

export const CLOSE = "event: close\ndata: {}";

/** A simulator that is closed after each test. */
export function useSimulators(): (options?: SimulatorOptions) => Promise<SimulatorHandle> {
  const started: SimulatorHandle[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.close()));
  });
  return async (options = {}) => {
    const sim = await startSimulator({ speed: 1000, ...options });
    started.push(sim);
    return sim;
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls until `fn` returns true (or fails the test after `ms`). */
export async function until(fn: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await sleep(5);
  }
}

export const UBUNTU = { os: "ubuntu", version: "24.04" };
