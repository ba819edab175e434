// The admin page's link to the public room: a spectator seat joined with the admin token (so admin messages need
// no token each), which reads the room's state and sends the documented admin messages; and the server's figures
// (GET /admin/stats, the token in a header).

import { Client } from "@colyseus/sdk";
import { MESSAGES, ROOM_NAME, type AdminAction, type NoticeMessage, type PliantRoom, type AdminStats, type RoomState } from "../../../shared/net";

export class AdminRoom {
  private constructor(readonly room: PliantRoom, private readonly token: string) {}

  /** Joins the public room with the token; rejects with the server's reason (a wrong token joins as nobody special). */
  static async connect(token: string): Promise<AdminRoom> {
    const stats = await fetch("/admin/stats", { headers: { authorization: `Bearer ${token}` } });
    if (stats.status === 401) throw new Error("wrong admin token");
    const room = await new Client(location.origin).join<RoomState>(ROOM_NAME, { role: "spectator", name: "Admin", adminToken: token });
    // The room streams body snapshots to every seat; this page shows none of them.
    for (const type of [MESSAGES.snapshot, MESSAGES.ack, MESSAGES.grabResult]) room.onMessage(type, () => undefined);
    return new AdminRoom(room, token);
  }

  send(action: AdminAction): void {
    this.room.send(MESSAGES.admin, { ...action, token: this.token });
  }

  /** Calls `listener` with each notice; returns the unsubscribe. */
  onNotice(listener: (notice: NoticeMessage) => void): () => void {
    return this.room.onMessage(MESSAGES.notice, listener);
  }

  async figures(): Promise<AdminStats> {
    const response = await fetch("/admin/stats", { headers: { authorization: `Bearer ${this.token}` } });
    if (!response.ok) throw new Error(`stats: ${response.status} ${await response.text()}`);
    return response.json();
  }

  leave(): Promise<unknown> {
    return this.room.leave();
  }
}
