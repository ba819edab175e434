// Debian's Chromium driven by playwright-core, for end-to-end tests against a real server on loopback. Every
// request that is not for the loopback server is blocked and recorded; console errors are recorded too.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
const NICED_CHROMIUM = path.join(import.meta.dirname, "niced-chromium.sh");
/** Where tests leave screenshots for people to look at (not checked in; docs/ holds the curated ones). */
export const ARTIFACTS = path.resolve(import.meta.dirname, "../../out/browser");

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export interface LaunchOptions {
  /** Run Chromium at a lower CPU priority than the server under test (tests); benchmarks run it as is. */
  niced?: boolean;
  viewport?: { width: number; height: number };
  /** Accept a self-signed certificate (as a person does once on a headset). */
  acceptCertificate?: boolean;
  /** Offer pages a WebGPU adapter (SwiftShader's, in software): Chromium gives none here without this flag. */
  webGpu?: boolean;
}

export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  const profile = mkdtempSync(path.join(tmpdir(), "pliant-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: options.niced === false ? CHROMIUM : NICED_CHROMIUM,
    headless: true,
    viewport: options.viewport ?? { width: 800, height: 500 },
    ignoreHTTPSErrors: options.acceptCertificate ?? false,
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist",
      ...(options.webGpu ? ["--enable-unsafe-webgpu"] : []),
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface WatchedPage {
  page: Page;
  /** Console errors and uncaught exceptions, in order. */
  errors: string[];
  /** Requests to anything but the loopback server (blocked). */
  offsite: string[];
}

/** Opens a page that may only talk to `origin`, recording errors and blocked requests. */
export async function openPage(browser: Browser, origin: string, pathAndQuery: string): Promise<WatchedPage> {
  const page = await browser.context.newPage();
  const errors: string[] = [], offsite: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(`${error.name}: ${error.message}`));
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    offsite.push(url);
    return route.abort("blockedbyclient");
  });
  await page.goto(`${origin}${pathAndQuery}`);
  return { page, errors, offsite };
}

/** Evaluates an expression string in the page (strings avoid tsx's __name helpers leaking into the page). */
export async function inPage<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

export async function waitForPage(page: Page, expression: string, timeoutMs = 60_000): Promise<void> {
  await page.waitForFunction(expression, undefined, { timeout: timeoutMs, polling: 100 });
}
