// The snapshot sender's contract: a tick's acks and snapshot leave after the tick returns, in that order, with the
// tick's own bytes (the encoder's buffer may be reused meanwhile: a joining client's full snapshot), never after the
// next tick's inputs, and never from a closed room.
import { describe, expect, it, vi } from "vitest";
import { SnapshotSender, type SnapshotSenderHost } from "../../server/room/snapshot-sender";
import { TickStats } from "../../server/room/tick-stats";

/** A host whose encoder writes every snapshot into one reused buffer, as SnapshotWriter does, and records what is sent. */
function recordingHost() {
  const buffer = new Uint8Array(64);
  const sent: string[] = [];
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
  };
  return { host, sent, buffer, close: () => (closed = true) };
}

describe("SnapshotSender", () => {
  it("sends the acks, then the snapshot, once the tick has returned, with the tick's own bytes", async () => {
    const { host, sent, buffer } = recordingHost(), stats = new TickStats(), sender = new SnapshotSender(host, stats);
    sender.prepare(42);
    expect(sent).toEqual([]);
    // Someone joins before the send and gets a full snapshot: the encoder's buffer is overwritten.
    buffer.fill(99);
    await vi.waitFor(() => expect(sent).toEqual(["acks 42", "snapshot 1 x20"]));
    expect(stats.snapshotBytes).toBe(60);
    expect(stats.sendCount).toBe(1);
    expect(stats.sendDurations[0]).toBeGreaterThanOrEqual(0);
    expect(sender.reserveMs).toBeGreaterThanOrEqual(0);
  });

  it("sends a waiting snapshot before the next tick's, each once", async () => {
    const { host, sent } = recordingHost(), sender = new SnapshotSender(host, new TickStats());
    sender.prepare(3);
    // The next tick starts in the same turn of the event loop (the fixed timestep caught up): it flushes first.
    sender.flush();
    sender.prepare(6);
    expect(sent).toEqual(["acks 3", "snapshot 1 x20"]);
    await vi.waitFor(() => expect(sent).toHaveLength(4));
    expect(sent.slice(2)).toEqual(["acks 6", "snapshot 2 x20"]);
    sender.flush();
    expect(sent).toHaveLength(4);
  });

  it("sends nothing from a room that closed meanwhile", async () => {
    const { host, sent, close } = recordingHost(), sender = new SnapshotSender(host, new TickStats());
    sender.prepare(9);
    close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([]);
  });

  it("leaves out a snapshot in which nothing moved, but still acks", async () => {
    const { host, sent } = recordingHost(), sender = new SnapshotSender(host, new TickStats());
    host.encode = () => new Uint8Array(10);
    sender.prepare(12);
    await vi.waitFor(() => expect(sent).toEqual(["acks 12"]));
  });
});
