// Building small streams in the server's exact format.
export const ev = (step: string, status: string, message: string): string =>
  `data: {"step":"${step}","status":"${status}","message":"${message}"}\n\n`;
export const CLOSE = "event: close\ndata: {}\n\n";

export const START_OK = [
  ev("starting VM", "info", "[*] starting VM"),
  ev("starting VM", "success", "[+] VM starting (0.85s)"),
  ev("waiting for SSH", "success", "[+] VM is ready (12.40s)"),
  ev("finalizing", "info", "[+] VM started successfully"),
  CLOSE,
];
