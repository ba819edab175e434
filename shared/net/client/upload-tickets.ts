// Upload tickets asked of the room (the answer to `upload-ticket`: a ticket for POST /meshes, or the room's reason
// for none), answered in the order they were asked.

import type { UploadTicketMessage } from "../protocol";

/** An upload ticket the room handed out (the answer to `upload-ticket` without an error). */
export type UploadTicket = Extract<UploadTicketMessage, { ticket: string }>;

export class UploadTickets {
  /** Asked for and not answered yet, oldest first. */
  private readonly waiters: { resolve(ticket: UploadTicket): void; reject(error: Error): void }[] = [];

  /** Asks (`ask` sends the request) and waits at most `timeoutMs` for the answer. */
  request(ask: () => void, timeoutMs: number): Promise<UploadTicket> {
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: (ticket: UploadTicket) => { clearTimeout(timer); resolve(ticket); },
        reject: (error: Error) => { clearTimeout(timer); reject(error); },
      };
      const timer = setTimeout(() => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(new Error("the room did not answer the upload-ticket request"));
      }, timeoutMs);
      this.waiters.push(waiter);
      ask();
    });
  }

  /** The room's answer to the oldest request. */
  answered(answer: UploadTicketMessage): void {
    const waiter = this.waiters.shift();
    if ("error" in answer) waiter?.reject(new Error(answer.error));
    else waiter?.resolve(answer);
  }
}
