// Secrets (the VM password, the connection token, header values) must never
// reach a log line or an error message. Everything the lifecycle prints from
// the server (stream lines, error messages) goes through a Redactor first,
// because the server echoes command output that could contain them.

export type Redactor = (text: string) => string;

const MASK = "***";

/**
 * A secret this short can be part of ordinary words ("prod" in
 * "production"): it is masked only where it stands as a whole value, not
 * inside a longer run of letters and digits. Passwords are never this short
 * (check refuses them); tokens and header values may be.
 */
const WHOLE_VALUE_BELOW = 8;

/**
 * Builds a redactor for these secrets. Every non-empty secret is masked, the
 * longest first; one shorter than 8 characters only as a whole value.
 */
export function redactor(secrets: Array<string | undefined>): Redactor {
  const list = [...new Set(secrets.filter((s): s is string => typeof s === "string" && s.length > 0))].sort(
    (a, b) => b.length - a.length,
  );
  if (list.length === 0) return (text) => text;
  const masks = list.map((s): ((text: string) => string) => {
    if (s.length >= WHOLE_VALUE_BELOW) return (text) => text.split(s).join(MASK);
    const whole = new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(s)}(?![A-Za-z0-9])`, "g");
    return (text) => text.replace(whole, MASK);
  });
  return (text) => masks.reduce((out, mask) => mask(out), text);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
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
