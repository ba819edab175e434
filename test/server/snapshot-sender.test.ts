// The snapshot sender's contract: a tick's acks and snapshot leave once the tick's callback has returned, in that
// order, with the tick's own bytes, never after the next tick's inputs, never from a closed room, and a send that
// throws closes the room instead of escaping.
import { describe, expect, it, vi } from "vitest";
import { SnapshotSender, type SnapshotSenderHost } from "../../server/room/snapshot-sender";
import { TickStats } from "../../server/room/tick-stats";

/** A host whose encoder writes every snapshot into one reused buffer, as SnapshotWriter does, and records what is sent. */
function recordingHost() {
  const buffer = new Uint8Array(64);
  const sent: string[] = [], failures: unknown[] = [];
  let next = 1, closed = false;
  const host: SnapshotSenderHost = {
    encode: () => {
      buffer.fill(next++, 0, 20);
      return buffer.subarray(0, 20);
    },
    sendAcks: (tick) => sent.push(`acks ${tick}`),
    broadcast: (bytes) => sent.push(`snapshot ${bytes[0]} x${bytes.length}`),
    clientCount: () => 3,
    closed: () => closed,
    fail: (error) => failures.push(error),
  };
  return { host, sent, buffer, failures, close: () => (closed = true) };
}

describe("SnapshotSender", () => {
  it("sends the acks, then the snapshot, once the tick has returned, with the tick's own bytes", async () => {
    const { host, sent, buffer } = recordingHost(), stats = new TickStats(), sender = new SnapshotSender(host, stats);
    sender.prepare(42);
    expect(sent).toEqual([]);
    // Whatever reuses the encoder's buffer before the send does not change what is sent.
    buffer.fill(99);
    await vi.waitFor(() => expect(sent).toEqual(["acks 42", "snapshot 1 x20"]));
    expect(stats.snapshotBytes).toBe(60);
    expect(stats.sends.count).toBe(1);
  });

  it("a tick that starts with a snapshot still waiting sends it first, and each goes once", async () => {
    const { host, sent } = recordingHost(), sender = new SnapshotSender(host, new TickStats());
    sender.prepare(3);
    // The next tick runs in the same callback (the fixed timestep caught up): it flushes before anything else.
    sender.flush();
    expect(sent).toEqual(["acks 3", "snapshot 1 x20"]);
    sender.prepare(6);
    await vi.waitFor(() => expect(sent).toHaveLength(4));
    expect(sent.slice(2)).toEqual(["acks 6", "snapshot 2 x20"]);
    sender.flush();
    expect(sent).toHaveLength(4);
  });

  it("sends nothing from a room that closed meanwhile", () => {
    const { host, sent, close } = recordingHost(), sender = new SnapshotSender(host, new TickStats());
    sender.prepare(9);
    close();
    sender.flush();
    expect(sent).toEqual([]);
  });

  it("leaves out a snapshot in which nothing moved, but still acks", async () => {
    const { host, sent } = recordingHost(), sender = new SnapshotSender(host, new TickStats());
    host.encode = () => new Uint8Array(10);
    sender.prepare(12);
    await vi.waitFor(() => expect(sent).toEqual(["acks 12"]));
  });

  it("a send that throws is handed to the room to close, not thrown past it", async () => {
    const { host, failures } = recordingHost(), sender = new SnapshotSender(host, new TickStats());
    host.broadcast = () => {
      throw new Error("socket gone");
    };
    sender.prepare(15);
    await vi.waitFor(() => expect(failures).toHaveLength(1));
    expect((failures[0] as Error).message).toBe("socket gone");
  });
});
