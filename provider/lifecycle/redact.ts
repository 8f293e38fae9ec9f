// Secrets (the VM password, the connection token, header values) must never
// reach a log line or an error message. Everything the lifecycle prints from
// the server (stream lines, error messages) goes through a Redactor first,
// because the server echoes command output that could contain them.

export type Redactor = (text: string) => string;

const MASK = "***";

/**
 * Builds a redactor for these secrets. Every non-empty secret is masked:
 * check refuses passwords shorter than 8 characters, so masking them all
 * never turns ordinary words into "***".
 */
export function redactor(secrets: Array<string | undefined>): Redactor {
  const list = [...new Set(secrets.filter((s): s is string => typeof s === "string" && s.length > 0))].sort(
    (a, b) => b.length - a.length,
  );
  if (list.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const s of list) out = out.split(s).join(MASK);
    return out;
  };
}

/** The message of any thrown value, redacted. */
export function errorText(err: unknown, redact: Redactor): string {
  const msg = err instanceof Error ? err.message : String(err);
  return redact(msg);
}

/**
 * The cause to attach to our own error: the original when it carries no
 * secret, otherwise a redacted copy (the glue or the engine may print causes).
 */
export function safeCause(err: unknown, redact: Redactor): unknown {
  if (!(err instanceof Error)) return err;
  if (redact(err.message) === err.message) return err;
  const copy = new Error(redact(err.message));
  copy.name = err.name;
  return copy;
}
