// Colyseus' logger: its errors go to the server's log. A socket error a client caused (an oversized or broken
// frame) is one line, throttled; anything else is a server problem and keeps its stack trace, loudly.

import { throttledLog, type LogLine } from "./throttled-log";

/** What `ws` reports for frames a client got wrong (ws/lib/receiver.js). */
const CLIENT_FRAME_ERRORS = /^(Max payload size exceeded|Invalid WebSocket frame|Invalid UTF-8|RSV[123] must be clear|invalid opcode|Control frames|FIN must be set|MASK must be (set|clear)|Unsupported WebSocket frame|invalid status code|invalid payload length)/i;

export function colyseusLogger(log: LogLine) {
  const throttled = throttledLog(log);
  const text = (args: unknown[]) => args.map((a) => (a instanceof Error ? a.stack ?? a.message : String(a))).join(" ");
  return {
    debug: () => undefined,
    trace: () => undefined,
    info: (...args: unknown[]) => log(text(args)),
    warn: (...args: unknown[]) => log(text(args)),
    error: (...args: unknown[]) => {
      const line = text(args), first = line.split("\n")[0];
      if (CLIENT_FRAME_ERRORS.test(first)) throttled("client frame", `a client sent a bad frame: ${first}`);
      else log(`server error: ${line}`);
    },
  };
}
