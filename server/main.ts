// npm start: serves the client and the playground room on http://HOST:PORT (env PORT, default 2567; HOST,
// default 0.0.0.0 so headsets on the local network can join). REDIS_URL enables scale-out, ADMIN_TOKEN fixes
// the admin token (otherwise one is generated and printed), SKINNING=model|eigen|baseline|model-raw picks the fields (default
// model, the network finished by Rayleigh-Ritz; eigen the reference: server/skinning/weights-source.ts), CUBATURE=clusters|fitted how their cubature is made. ALLOWED_ORIGINS lists
// other web origins that may call the matchmaking endpoints; RECONNECT_SECONDS is how long a dropped client's seat waits;
// IDLE_RESET_MINUTES how long nobody may touch anything before the table is reset (0: never); ATTRACT_WOBBLE_SECONDS
// how often a body of an idle room watched by a kiosk bounces (0: never); UPLOAD_SIZE the largest extent uploaded meshes
// are scaled to (m; UPLOAD_LIMITS.defaultSize). HTTPS=self-signed
// (or TLS_CERT + TLS_KEY files) serves https, which headsets need for WebXR on the local network.

import path from "node:path";
import { lanAddresses, startServer } from "./app";
import { configurePlayground } from "./room/playground-config";
import { certificateFromFiles, selfSignedCertificate } from "./tls/certificate";
import { DEFAULT_WEIGHTS, fieldChoice, isWeightsSource, WEIGHTS_SOURCES } from "./skinning/weights-source";
import { FIT_CUBATURE_BY_DEFAULT } from "../shared/skinning";
import { SERVER_FLESH_CHARACTERS } from "../shared/rig/character-defaults";
import { LIMITS, UPLOAD_LIMITS } from "../shared/net";
import { DEFAULT_IDLE_RESET_MINUTES } from "./room/table-reset";
import { ATTRACT_WOBBLE_SECONDS } from "./room/attract-wobble";

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 2567);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got "${process.env.PORT}"`);
  const host = process.env.HOST ?? "0.0.0.0";
  const skinning = process.env.SKINNING ?? DEFAULT_WEIGHTS;
  if (!isWeightsSource(skinning)) throw new Error(`SKINNING must be one of ${WEIGHTS_SOURCES.join(", ")}, got "${skinning}"`);
  const { provider, providerKey } = await fieldChoice(skinning);
  const cubature = process.env.CUBATURE ?? (FIT_CUBATURE_BY_DEFAULT ? "fitted" : "clusters");
  if (cubature !== "fitted" && cubature !== "clusters") throw new Error(`CUBATURE must be fitted or clusters, got "${cubature}"`);
  const reconnectSeconds = Number(process.env.RECONNECT_SECONDS ?? 20);
  if (!(reconnectSeconds >= 0 && reconnectSeconds <= 3600)) throw new Error(`RECONNECT_SECONDS must be 0-3600, got "${process.env.RECONNECT_SECONDS}"`);
  const idleResetMinutes = Number(process.env.IDLE_RESET_MINUTES ?? DEFAULT_IDLE_RESET_MINUTES);
  if (!(idleResetMinutes >= 0 && idleResetMinutes <= LIMITS.idleResetMinutes)) throw new Error(`IDLE_RESET_MINUTES must be 0-${LIMITS.idleResetMinutes}, got "${process.env.IDLE_RESET_MINUTES}"`);
  const attractWobbleSeconds = Number(process.env.ATTRACT_WOBBLE_SECONDS ?? ATTRACT_WOBBLE_SECONDS);
  if (!(attractWobbleSeconds >= 0 && attractWobbleSeconds <= 3600)) throw new Error(`ATTRACT_WOBBLE_SECONDS must be 0-3600, got "${process.env.ATTRACT_WOBBLE_SECONDS}"`);
  const uploadSize = Number(process.env.UPLOAD_SIZE ?? UPLOAD_LIMITS.defaultSize);
  if (!(uploadSize >= UPLOAD_LIMITS.minSize && uploadSize <= UPLOAD_LIMITS.maxSize)) throw new Error(`UPLOAD_SIZE must be ${UPLOAD_LIMITS.minSize}-${UPLOAD_LIMITS.maxSize} (m), got "${process.env.UPLOAD_SIZE}"`);
  const learnedFlesh = process.env.LEARNED_FLESH ?? "1";
  if (learnedFlesh !== "0" && learnedFlesh !== "1") throw new Error(`LEARNED_FLESH must be 0 or 1, got "${learnedFlesh}"`);
  const serverFleshCharacters = Number(process.env.SERVER_FLESH_CHARACTERS ?? SERVER_FLESH_CHARACTERS);
  if (!(Number.isInteger(serverFleshCharacters) && serverFleshCharacters >= 0 && serverFleshCharacters <= 64)) throw new Error(`SERVER_FLESH_CHARACTERS must be a whole number 0-64, got "${process.env.SERVER_FLESH_CHARACTERS}"`);
  // Characters' untouched flesh from their trained networks, the linearised flesh or the pages' springs (1), or always from the solver (0).
  configurePlayground({ learnedFlesh: learnedFlesh === "1", serverFleshCharacters });
  const tls = await tlsFromEnvironment(host);
  const server = await startServer({
    port, host, redisUrl: process.env.REDIS_URL || undefined, adminToken: process.env.ADMIN_TOKEN, provider,
    providerKey,
    fitCubature: cubature === "fitted",
    publicAddress: process.env.PUBLIC_ADDRESS || undefined, tls,
    reconnectSeconds, idleResetMinutes, attractWobbleSeconds, uploadSize, warmUploads: true,
    allowedOrigins: (process.env.ALLOWED_ORIGINS ?? "").split(",").map((o) => o.trim()).filter(Boolean),
  });
  process.stdout.write(`Pliant is running. Point a headset's browser at:\n${server.urls.map((u) => `  ${u}`).join("\n")}\n`);
  process.stdout.write(`Admin token: ${server.adminToken}${process.env.ADMIN_TOKEN ? " (from ADMIN_TOKEN)" : " (generated; set ADMIN_TOKEN to fix it)"}\n`);
  if (process.env.REDIS_URL) process.stdout.write(`Scale-out: sharing rooms through Redis at ${process.env.REDIS_URL}\n`);
  if (process.env.HTTPS === "self-signed") process.stdout.write("HTTPS with a self-signed certificate: each headset asks once to accept it (Advanced > Proceed).\n");
  else if (!tls && host !== "127.0.0.1" && host !== "localhost") process.stdout.write("Plain HTTP: headsets on the network can watch but not enter VR; set HTTPS=self-signed for that.\n");
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

async function tlsFromEnvironment(host: string) {
  const { HTTPS: https, TLS_CERT: certFile, TLS_KEY: keyFile } = process.env;
  if (certFile || keyFile) {
    if (!certFile || !keyFile) throw new Error("set both TLS_CERT and TLS_KEY (PEM files), or neither");
    return certificateFromFiles(certFile, keyFile);
  }
  if (!https) return undefined;
  if (https !== "self-signed") throw new Error(`HTTPS must be "self-signed" (or use TLS_CERT and TLS_KEY), got "${https}"`);
  const addresses = ["localhost", "127.0.0.1", ...(host === "0.0.0.0" || host === "::" ? lanAddresses() : [host])];
  const certificate = await selfSignedCertificate(path.resolve(import.meta.dirname, "../.cache/tls"), addresses);
  if (certificate.created) process.stdout.write(`Made a self-signed certificate for ${addresses.join(", ")} (.cache/tls)\n`);
  return { key: certificate.key, cert: certificate.cert };
}

main().catch((error: Error) => {
  process.stderr.write(`pliant: ${error.message}\n`);
  process.exit(1);
});
