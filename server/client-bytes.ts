// Bytes the server has written to its clients' WebSockets since it started, closed sockets included. A benchmark
// takes the difference over a window; summing only the sockets open at each end lost every socket that closed in
// between (bench:server once reported -68,140 bytes per client per second).

interface CountedSocket {
  _socket?: { bytesWritten: number } | null;
  once(event: "close", listener: () => void): unknown;
}
interface SocketServer {
  clients: Set<CountedSocket>;
  on(event: "connection", listener: (socket: CountedSocket) => void): unknown;
}

export interface ClientBytes {
  /** Bytes written to every client socket so far, open or closed; never less than an earlier answer. */
  total: number;
  /** Of those, the ones written to sockets that have closed. */
  closed: number;
  /** Sockets open now. */
  open: number;
}

/** Starts counting on `transport` (@colyseus/ws-transport's, whose `wss` is the ws server); call before clients connect. */
export function countClientBytes(transport: unknown): () => ClientBytes {
  const server = (transport as { wss: SocketServer }).wss;
  let closed = 0, total = 0;
  // ws drops a closing socket from `clients` before this listener runs, and keeps its `_socket` with the final count.
  server.on("connection", (socket) => socket.once("close", () => { closed += socket._socket?.bytesWritten ?? 0; }));
  return () => {
    let open = 0;
    for (const socket of server.clients) open += socket._socket?.bytesWritten ?? 0;
    // An open socket's count includes what still waits in its buffer, which a socket destroyed with data pending
    // drops from it: the total holds what it once said rather than go back.
    total = Math.max(total, closed + open);
    return { total, closed, open: server.clients.size };
  };
}
