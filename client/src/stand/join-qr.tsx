// The address phones and headsets should open, as a QR code drawn here (no service is asked): the server says
// which address that is (GET /join-address: its first LAN address, https when TLS is on).

import QRCode from "qrcode";
import { useEffect, useRef, useState } from "react";

export function useJoinAddress(): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    fetch("/join-address").then((r) => r.json()).then((a: { url: string }) => live && setUrl(a.url)).catch(() => live && setUrl(location.origin));
    return () => { live = false; };
  }, []);
  return url;
}

export function JoinQr({ url, size }: { url: string; size: number }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (canvas.current) void QRCode.toCanvas(canvas.current, url, { width: size, margin: 2, errorCorrectionLevel: "M", color: { dark: "#000000", light: "#ffffff" } });
  }, [url, size]);
  return <canvas ref={canvas} width={size} height={size} data-testid="join-qr" data-url={url} style={{ display: "block", borderRadius: 8 }} />;
}
