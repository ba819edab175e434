// Colyseus 0.18's reconnection (Room._onJoin) checks `client.readyState !== WebSocket.OPEN` against the global
// WebSocket, which Node 20 does not define (Node 22 does): every reconnection then fails with "WebSocket is not
// defined". The `ws` package's class, which the transport itself uses, fills the gap.

import { WebSocket as NodeWebSocket } from "ws";

const scope = globalThis as { WebSocket?: unknown };
scope.WebSocket ??= NodeWebSocket;
