// The address phones and headsets should open, as a QR code drawn here (no service is asked): the server says
// which address that is (GET /join-address: the address the page was opened by, or its first LAN address, https
// when TLS is on). A loopback address (a server started with HOST=127.0.0.1, or a machine with no network) is no
// use to a phone: the stand is told so, and how to fix it, beside the code.

import QRCode from "qrcode";
import { useEffect, useRef, useState } from "react";

export function useJoinAddress(): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    fetch("/join-address").then((r) => r.json()).then((a: { url: string }) => live && setUrl(a.url)).catch((error: unknown) => {
      console.info("[pliant] join address:", error);
      if (live) setUrl(location.origin);
    });
    return () => { live = false; };
  }, []);
  return url;
}

/** The host of `url` when only this machine can reach it (localhost, 127.x.x.x, ::1, 0.0.0.0), else null. */
export function loopbackHost(url: string): string | null {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return null;
  }
  return /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1|0\.0\.0\.0)$/i.test(host) || host.endsWith(".localhost") ? host : null;
}

export function JoinQr({ url, size }: { url: string; size: number }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (canvas.current) void QRCode.toCanvas(canvas.current, url, { width: size, margin: 2, errorCorrectionLevel: "M", color: { dark: "#000000", light: "#ffffff" } });
  }, [url, size]);
  return <canvas ref={canvas} width={size} height={size} data-testid="join-qr" data-url={url} style={{ display: "block", borderRadius: 8 }} />;
}

/** Beside a QR code of a loopback address: phones cannot open it, and what the stand's operator does about it. */
export function UnreachableAddressWarning({ url, style }: { url: string; style?: React.CSSProperties }) {
  const host = loopbackHost(url);
  if (!host) return null;
  return (
    <div role="alert" data-testid="join-address-warning" style={{ background: "#5d1f1a", color: "#ffe0db", border: "1px solid #ff8a65", borderRadius: 8, padding: "8px 10px", font: "14px/1.4 system-ui, sans-serif", maxWidth: 320, ...style }}>
      <b>Phones can't reach {host}</b>: it is this computer's own address. Start the server with <code>HOST=0.0.0.0 npm start</code> (the
      default), connect this computer to the visitors' network, and reload this page; the code then shows its network address.
    </div>
  );
}
