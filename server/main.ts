// npm start: serves the client and the playground room on http://HOST:PORT (env PORT, default 2567; HOST,
// default 0.0.0.0 so headsets on the local network can join). REDIS_URL enables scale-out, ADMIN_TOKEN fixes
// the admin token (otherwise one is generated and printed), SKINNING=model uses the neural fields.

import { startServer } from "./app";
import { modelProvider } from "./skinning/model-provider";
import { orthonormalProvider } from "../shared/skinning";

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 2567);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got "${process.env.PORT}"`);
  const host = process.env.HOST ?? "0.0.0.0";
  const skinning = process.env.SKINNING ?? "baseline";
  if (skinning !== "baseline" && skinning !== "model") throw new Error(`SKINNING must be baseline or model, got "${skinning}"`);
  const provider = skinning === "model" ? orthonormalProvider(await modelProvider()) : undefined;
  const server = await startServer({
    port, host, redisUrl: process.env.REDIS_URL || undefined, adminToken: process.env.ADMIN_TOKEN, provider, providerKey: skinning,
    publicAddress: process.env.PUBLIC_ADDRESS || undefined,
  });
  process.stdout.write(`Pliant is running. Point a headset's browser at:\n${server.urls.map((u) => `  ${u}`).join("\n")}\n`);
  process.stdout.write(`Admin token: ${server.adminToken}${process.env.ADMIN_TOKEN ? " (from ADMIN_TOKEN)" : " (generated; set ADMIN_TOKEN to fix it)"}\n`);
  if (process.env.REDIS_URL) process.stdout.write(`Scale-out: sharing rooms through Redis at ${process.env.REDIS_URL}\n`);
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: Error) => {
  process.stderr.write(`pliant: ${error.message}\n`);
  process.exit(1);
});
