// A TLS certificate for `HTTPS=self-signed`: headset browsers allow WebXR only on https (or localhost) pages, and
// a trade-show laptop has no domain name. The certificate names localhost and every LAN address of the machine,
// is kept in .cache/tls (so a headset that accepted it once keeps accepting it), and is renewed when it nears
// expiry or when the machine's addresses change.

import { mkdir, readFile, writeFile } from "node:fs/promises";
import { X509Certificate } from "node:crypto";
import path from "node:path";
import { generate } from "selfsigned";

export interface TlsFiles {
  key: string;
  cert: string;
}

const DAYS = 365;
const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;

/** The cached self-signed certificate for these addresses, or a new one. */
export async function selfSignedCertificate(directory: string, addresses: string[]): Promise<TlsFiles & { created: boolean }> {
  const keyFile = path.join(directory, "key.pem"), certFile = path.join(directory, "cert.pem");
  try {
    const [key, cert] = await Promise.all([readFile(keyFile, "utf8"), readFile(certFile, "utf8")]);
    const x509 = new X509Certificate(cert);
    const names = x509.subjectAltName ?? "";
    const coversAll = addresses.every((a) => names.includes(a));
    if (coversAll && new Date(x509.validTo).getTime() - Date.now() > RENEW_BEFORE_MS) return { key, cert, created: false };
  } catch {
    // none yet, or unreadable: make one
  }
  const now = new Date();
  const pems = await generate([{ name: "commonName", value: "Pliant" }], {
    keySize: 2048,
    algorithm: "sha256",
    notBeforeDate: new Date(now.getTime() - 24 * 3600 * 1000),
    notAfterDate: new Date(now.getTime() + DAYS * 24 * 3600 * 1000),
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      { name: "subjectAltName", altNames: addresses.map((a) => (/^[\d.]+$|:/.test(a) ? { type: 7 as const, ip: a } : { type: 2 as const, value: a })) },
    ],
  });
  await mkdir(directory, { recursive: true });
  await writeFile(keyFile, pems.private, { mode: 0o600 });
  await writeFile(certFile, pems.cert);
  return { key: pems.private, cert: pems.cert, created: true };
}

/** A certificate and key from files (TLS_CERT, TLS_KEY), with a clear error when either is missing. */
export async function certificateFromFiles(certFile: string, keyFile: string): Promise<TlsFiles> {
  const read = async (file: string, what: string) => {
    try {
      return await readFile(file, "utf8");
    } catch {
      throw new Error(`cannot read the TLS ${what} "${file}"`);
    }
  };
  return { cert: await read(certFile, "certificate"), key: await read(keyFile, "key") };
}
