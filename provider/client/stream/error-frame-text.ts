// The words an in-band error frame (`event: error`, `sse_error`) is reported with.
// Such a frame is not one of the server's step events, so its text is built to
// say what it is, what it said and what it carried; and since its data can be
// anything a relay puts there, what it carried is cut to a bounded length.
import { ErrorBodySchema } from "../schemas";

const IN_BAND_DATA_MAX = 500;

/** `in-band "sse_error" frame of the stream: <words> (data: <data>)`: what it is, what it said, what it carried. */
export function inBandErrorText(event: string, data: string): string {
  const words = errorFrameMessage(data);
  const shown =
    data.length > IN_BAND_DATA_MAX
      ? `${data.slice(0, IN_BAND_DATA_MAX)}… [${data.length - IN_BAND_DATA_MAX} more chars]`
      : data;
  return words === data
    ? `in-band "${event}" frame of the stream: ${shown}`
    : `in-band "${event}" frame of the stream: ${words} (data: ${shown})`;
}

/** The words of an in-band error frame: its JSON message/error field, or its text. */
function errorFrameMessage(data: string): string {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return data; // not JSON: the text is the message
  }
  const body = ErrorBodySchema.safeParse(value);
  if (!body.success) return data;
  const { message, error } = body.data;
  return message ?? (typeof error === "string" ? error : error?.message) ?? data;
}
