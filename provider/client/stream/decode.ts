// Frame -> OperationEvent: what the server meant by one SSE frame.
//
// go-pve-qemu builds its JSON with fmt.Sprintf and no escaping, so a message
// holding `"` or `\` arrives as invalid JSON. Such a payload is never fatal and
// never dropped: it becomes a `raw` event with its text, and since it is one of
// the server's two templates, the template is inverted to recover the exact event.
import { BareMessageSchema, OutputChunkSchema, StepEventSchema } from "../schemas";
import type { BareOperationEvent, OperationEvent, StepOperationEvent } from "./types";
import type { Frame } from "./frames";

export function decodeFrame(frame: Frame): OperationEvent {
  const name = frame.event;
  if (name === undefined || name === "message") return decodeData(frame.data, frame.id);
  if (name === "close") return frame.id === undefined ? { kind: "close" } : { kind: "close", id: frame.id };
  return decodeNamed(name, frame);
}

const OPEN_BRACE = 123; // {
const OPEN_BRACKET = 91; // [

/** The payload of an unnamed frame: a step event, the bare refusal, or raw text. */
function decodeData(data: string, id: string | undefined): OperationEvent {
  const first = data.charCodeAt(0);
  // Hot path: nearly every frame is the server's step template. Read by position, it needs
  // no JSON.parse (and no thrown SyntaxError for the broken ones); zod still checks it.
  if (first === OPEN_BRACE) {
    const parts = splitStepTemplate(data);
    if (parts !== undefined) {
      const verdict = parts.complete ? classifyMessage(parts.message) : "broken";
      if (verdict === "plain") {
        // Exactly what JSON.parse would return: no escape to decode, nothing that ends a string.
        const step = StepEventSchema.safeParse(parts);
        return step.success ? stepEvent(step.data as StepOperationEvent, id) : other("message", data, id);
      }
      if (verdict === "broken") return raw(data, id, checkedStep(parts));
      // "escaped": a server that does escape; JSON.parse below decides.
    }
  }
  // Only an object can be an event; an array is JSON of another shape. Anything else is
  // output text: no JSON.parse for it.
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return raw(data, id, undefined);
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return raw(data, id, recoverTemplate(data));
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return other("message", data, id);
  if ("step" in value) {
    const step = StepEventSchema.safeParse(value);
    return step.success ? stepEvent(step.data as StepOperationEvent, id) : other("message", data, id);
  }
  const bare = BareMessageSchema.safeParse(value);
  if (bare.success)
    return id === undefined
      ? { kind: "bare", message: bare.data.message }
      : { kind: "bare", id, message: bare.data.message };
  return other("message", data, id);
}

function stepEvent(ev: StepOperationEvent, id: string | undefined): StepOperationEvent {
  // zod's output is a fresh object: label it in place rather than copy it.
  ev.kind = "step";
  if (id !== undefined) ev.id = id;
  return ev;
}

function decodeNamed(name: string, frame: Frame): OperationEvent {
  // Services that stream command output: stdout/stderr frames carry {"encoding":"base64"|"ascii","value":".."}.
  if (name === "stdout" || name === "stderr") {
    const text = outputText(frame.data);
    if (text !== undefined) {
      const ev: OperationEvent = { kind: "other", event: name, data: frame.data, text };
      if (frame.id !== undefined) ev.id = frame.id;
      return ev;
    }
  }
  return other(name, frame.data, frame.id);
}

function outputText(data: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  const chunk = OutputChunkSchema.safeParse(value);
  if (!chunk.success) return undefined;
  const { encoding, value: text } = chunk.data;
  return encoding === "base64" ? Buffer.from(text, "base64").toString("utf8") : text;
}

function other(event: string, data: string, id: string | undefined): OperationEvent {
  return id === undefined ? { kind: "other", event, data } : { kind: "other", id, event, data };
}

function raw(
  text: string,
  id: string | undefined,
  recovered: StepOperationEvent | BareOperationEvent | undefined,
): OperationEvent {
  const ev: OperationEvent = { kind: "raw", text };
  if (id !== undefined) ev.id = id;
  if (recovered !== undefined) {
    if (id !== undefined) recovered.id = id;
    ev.recovered = recovered;
  }
  return ev;
}

// The server's two templates, written with fmt.Sprintf and no escaping:
//   {"step":"%s","status":"%s","message":"%s"}
//   {"message": "%v"}
// Step names and status words never contain quotes, so the first `","status":"`
// and `","message":"` separators are the real ones and everything up to the
// final `"}` is the message, exactly as the server had it. When the message
// itself held a line break (command output in an error), the payload stops at
// that break and the rest arrives as a non-SSE line: the message is then the
// part before the break, still the server's words.
const STEP_HEAD = '{"step":"';
const STATUS_SEP = '","status":"';
const MESSAGE_SEP = '","message":"';
const BARE_HEAD = '{"message": "';
const TAIL = '"}';

// A string with none of the characters after which JSON text is no longer its own literal
// value: quote, backslash, and the control characters JSON forbids raw. (Written as an
// anchored negated class: V8 runs that about twice as fast as searching for a special.)
// eslint-disable-next-line no-control-regex
const PLAIN = /^[^"\\\u0000-\u001f]*$/;
const BACKSLASH = 92;

interface TemplateParts {
  step: string;
  status: string;
  message: string;
  /** the payload ends with the template's `"}` */
  complete: boolean;
}

/** The step template read by position; undefined when the payload is not that template. */
function splitStepTemplate(text: string): TemplateParts | undefined {
  if (!text.startsWith(STEP_HEAD)) return undefined;
  const statusAt = text.indexOf(STATUS_SEP, STEP_HEAD.length);
  if (statusAt < 0) return undefined;
  const messageAt = text.indexOf(MESSAGE_SEP, statusAt + STATUS_SEP.length);
  if (messageAt < 0) return undefined;
  const step = text.slice(STEP_HEAD.length, statusAt);
  // a step name needing escapes is not the server's (its step names are plain words)
  if (!PLAIN.test(step)) return undefined;
  const complete = text.endsWith(TAIL) && text.length - TAIL.length >= messageAt + MESSAGE_SEP.length;
  const message = text.slice(messageAt + MESSAGE_SEP.length, complete ? text.length - TAIL.length : text.length);
  return { step, status: text.slice(statusAt + STATUS_SEP.length, messageAt), message, complete };
}

/**
 * plain:   no quote, backslash or control character: the text is its own JSON value.
 * escaped: every backslash starts a valid JSON escape and every quote is escaped - a server
 *          that escapes; JSON.parse decodes it (and, by construction, succeeds).
 * broken:  an unescaped quote, an invalid escape or a raw control character: the server's
 *          unescaped text, which JSON.parse would reject, or misread as more JSON.
 */
function classifyMessage(message: string): "plain" | "escaped" | "broken" {
  if (PLAIN.test(message)) return "plain";
  for (let i = 0; i < message.length; i++) {
    const c = message.charCodeAt(i);
    if (c === BACKSLASH) {
      const next = message.charCodeAt(i + 1);
      if (next === 117) {
        // \uXXXX
        if (!/^[0-9A-Fa-f]{4}$/.test(message.slice(i + 2, i + 6))) return "broken";
        i += 5;
      } else if (
        next === 34 ||
        next === BACKSLASH ||
        next === 47 ||
        next === 98 ||
        next === 102 ||
        next === 110 ||
        next === 114 ||
        next === 116
      ) {
        i++; // \" \\ \/ \b \f \n \r \t
      } else {
        return "broken";
      }
    } else if (c === 34 || c < 32) {
      return "broken";
    }
  }
  return "escaped";
}

function checkedStep(parts: TemplateParts): StepOperationEvent | undefined {
  const checked = StepEventSchema.safeParse({ step: parts.step, status: parts.status, message: parts.message });
  return checked.success ? { kind: "step", ...checked.data } : undefined;
}

/** The event a broken payload meant, when it is one of the server's templates. */
function recoverTemplate(text: string): StepOperationEvent | BareOperationEvent | undefined {
  const parts = splitStepTemplate(text);
  if (parts !== undefined) return checkedStep(parts);
  if (text.startsWith(BARE_HEAD)) {
    const end =
      text.endsWith(TAIL) && text.length >= BARE_HEAD.length + TAIL.length ? text.length - TAIL.length : text.length;
    return { kind: "bare", message: text.slice(BARE_HEAD.length, end) };
  }
  return undefined;
}
