// The watching client of `npm run bench:uploads`, in its own process (building a body costs its thread a quarter
// second, which must not be counted as the server's): prints "visible <body id> <Date.now()>" as each body is built.
//
//   tsx test/bench/upload-watcher.ts ENDPOINT ROOM_ID

import { PliantRoomClient } from "../../shared/net";

const [endpoint, roomId] = process.argv.slice(2);
const client = await PliantRoomClient.join({ endpoint, roomId, options: { role: "spectator", name: "watcher" } });
const seen = new Set(client.bodies.keys());
setInterval(() => client.update(), 16);
client.subscribeBodies(() => {
  for (const id of client.bodies.keys()) {
    if (seen.has(id)) continue;
    seen.add(id);
    process.stdout.write(`visible ${id} ${Date.now()}\n`);
  }
});
process.stdout.write("ready\n");
