// HTTPS=self-signed: the server makes (once) a certificate for its addresses and serves the app and the room
// over https and wss, so that a headset on the local network gets a secure context, which WebXR requires.

import { X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/app";
import { selfSignedCertificate } from "../../server/tls/certificate";
import { inPage, launchBrowser, openPage, waitForPage, type Browser } from "./browser";

let directory: string;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), "pliant-tls-"));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe("https with a self-signed certificate", () => {
  it("names the machine's addresses, is made once, and serves a secure page whose room works over wss", async () => {
    const first = await selfSignedCertificate(directory, ["localhost", "127.0.0.1"]);
    expect(first.created).toBe(true);
    const names = new X509Certificate(first.cert).subjectAltName ?? "";
    expect(names).toContain("DNS:localhost");
    expect(names).toContain("IP Address:127.0.0.1");
    // Kept: a headset that accepted it once is not asked again after a restart.
    const again = await selfSignedCertificate(directory, ["localhost", "127.0.0.1"]);
    expect(again.created).toBe(false);
    expect(again.cert).toBe(first.cert);
    // A new address on the machine means a new certificate.
    expect((await selfSignedCertificate(directory, ["localhost", "127.0.0.1", "10.1.2.3"])).created).toBe(true);

    server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "tls", tls: { key: again.key, cert: again.cert }, log: () => undefined });
    expect(server.urls).toEqual([`https://127.0.0.1:${server.port}`]);
    browser = await launchBrowser({ acceptCertificate: true });
    const origin = `https://127.0.0.1:${server.port}`;
    const page = await openPage(browser, origin, "/");
    await waitForPage(page.page, "window.pliant && window.pliant.ready");
    expect(await inPage<boolean>(page.page, "window.isSecureContext")).toBe(true);
    expect(await inPage<string>(page.page, "window.pliant.connection.snapshot.status")).toBe("connected");
    expect(page.errors).toEqual([]);
    expect(page.offsite).toEqual([]);
  });
});
