// The HTML report as a person sees it: the suite runs against the official @a2a-js/sdk server
// (real failures and warnings, no known-failing list), the report is opened in headless Chromium
// (Debian's `chromium`, driven by playwright-core; no browser download) at 1280×800, and the
// verdict, the counts and the version × binding matrix must be in the first screen, every link
// must land on its target, nothing may scroll sideways, the blocks start collapsed, each quote
// appears once and rendered, and the print styles hide the navigation. `make test-browser`; the
// screenshot and the report are kept under reports/.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { htmlReport } from "../../src/compliance/html-report.js";
import { consoleReport, type Report } from "../../src/compliance/report.js";
import { runSuite } from "../../src/compliance/suite.js";
import { startSdkTarget, type SdkTarget } from "../integration/compliance-sdk-target.js";

const CHROMIUM = process.env.A2A_CHROMIUM ?? "/usr/bin/chromium";
const OUT = resolve("reports");
const VIEW = { width: 1280, height: 800 };

let target: SdkTarget | undefined;
let browser: Browser | undefined;
let report: Report;
let file: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set A2A_CHROMIUM)`);
  vi.spyOn(console, "error").mockImplementation(() => undefined); // the SDK logs every error it answers with
  target = await startSdkTarget();
  report = await runSuite({ target: target.url, bindings: ["json-rpc", "rest"], streamTimeoutMs: 10_000 });
  mkdirSync(OUT, { recursive: true });
  file = resolve(OUT, "compliance-sdk-report.html");
  writeFileSync(file, htmlReport(report));
  browser = await chromium.launch({ executablePath: CHROMIUM });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await target?.close();
  vi.restoreAllMocks();
});

async function open(viewport = VIEW): Promise<Page> {
  const page = await browser!.newPage({ viewport });
  await page.goto(pathToFileURL(file).href);
  return page;
}

/** The element's box in the page, scrolled to the top. */
async function box(page: Page, selector: string) {
  const b = await page.locator(selector).first().boundingBox();
  expect(b, selector).not.toBeNull();
  return b!;
}

describe("the HTML report in headless Chromium", () => {
  it("the run has failures and warnings to show; the console shows them at a glance", () => {
    expect(report.summary.failed).toBeGreaterThan(0);
    expect(report.summary.warnings).toBeGreaterThan(0);
    // The same run on the console (docs/cli.md): verdict, counts and matrix in the first 15 lines,
    // each failure in at most 5, the whole default output under 80.
    const lines = consoleReport(report).trimEnd().split("\n");
    expect(lines[0]).toMatch(/^FAILED  \d+ MUST failures?, \d+ warnings?: agent /);
    const matrixEnd = lines.findIndex((l) => l.startsWith("  0.3 "));
    expect(matrixEnd).toBeGreaterThan(0);
    expect(matrixEnd).toBeLessThan(15);
    const starts = lines.map((l, i) => (/^(FAIL|WARN) /.test(l) ? i : -1)).filter((i) => i >= 0);
    expect(starts).toHaveLength(report.summary.failed + report.summary.warnings);
    for (const [k, at] of starts.entries()) {
      const end = starts[k + 1] ?? lines.indexOf("", at);
      expect(end - at, lines[at]).toBeLessThanOrEqual(5);
    }
    expect(lines.length).toBeLessThan(80);
    writeFileSync(resolve(OUT, "compliance-sdk-console.txt"), lines.join("\n") + "\n");
  });

  it("verdict, counts by level and the version × binding matrix in the first screen at 1280×800", async () => {
    const page = await open();
    try {
      await expect(page.locator("#verdict strong").textContent()).resolves.toBe("FAILED");
      for (const sel of ["#verdict", "table.levels", "table.vb"])
        expect((await box(page, sel)).y + (await box(page, sel)).height).toBeLessThanOrEqual(VIEW.height);
      // Every row of the matrix, with its versions and bindings, is on screen too.
      const rows = await page.locator("table.vb tr th:first-child").allTextContents();
      expect(rows).toEqual(["Version", "1.0", "0.3"]);
      await page.screenshot({ path: resolve(OUT, "html-report-first-screen.png") });
    } finally {
      await page.close();
    }
  });

  it("every failure and warning links to its block, which the link scrolls into view", async () => {
    const page = await open();
    try {
      const links = page.locator("ul.gist a");
      const n = await links.count();
      expect(n).toBe(report.summary.failed + report.summary.warnings);
      for (let i = 0; i < n; i++) {
        const href = (await links.nth(i).getAttribute("href"))!;
        await links.nth(i).click();
        const id = decodeURIComponent(href.slice(1));
        expect(await page.evaluate(() => decodeURIComponent(location.hash.slice(1)))).toBe(id);
        // Below the sticky navigation bar, not under it.
        const top = await page.evaluate((x) => document.getElementById(x)?.getBoundingClientRect().top ?? -1, id);
        const nav = await page.evaluate(() => document.querySelector("nav")!.getBoundingClientRect().bottom);
        expect(top, href).toBeGreaterThanOrEqual(nav - 1);
        expect(top, href).toBeLessThan(VIEW.height);
        expect(await page.evaluate((x) => document.getElementById(x)?.tagName, id)).toBe("DETAILS");
      }
      // Every in-page link has its target; there is no other kind of link.
      const hrefs = await page.locator("a").evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
      for (const h of hrefs) {
        expect(h).toMatch(/^#/);
        expect(await page.evaluate((x) => document.getElementById(x) !== null, decodeURIComponent(h.slice(1))), h).toBe(true);
      }
    } finally {
      await page.close();
    }
  });

  it("no sideways scroll, at 1280 px and at 768 px", async () => {
    for (const viewport of [VIEW, { width: 768, height: 1000 }]) {
      const page = await open(viewport);
      try {
        // Open every block: their expected/actual columns are the widest content.
        await page.evaluate(() => document.querySelectorAll("details").forEach((d) => (d.open = true)));
        const { scroll, client } = await page.evaluate(() => ({
          scroll: document.documentElement.scrollWidth,
          client: document.documentElement.clientWidth,
        }));
        expect(scroll, `${viewport.width} px`).toBeLessThanOrEqual(client);
      } finally {
        await page.close();
      }
    }
  });

  it("blocks start collapsed; each quote appears once in a block, its Markdown rendered", async () => {
    const page = await open();
    try {
      expect(await page.locator("details[open]").count()).toBe(0);
      const blocks = await page
        .locator("details")
        .evaluateAll((ds) => ds.map((d) => [...d.querySelectorAll("blockquote.spec")].map((q) => q.textContent ?? "")));
      const quotes = blocks.flat();
      expect(quotes.length).toBeGreaterThan(0);
      for (const qs of blocks) expect(new Set(qs).size).toBe(qs.length);
      for (const q of quotes) expect(q).not.toMatch(/\*\*|`/);
      expect(await page.locator("blockquote.spec strong").count()).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  });

  it("prints: no navigation, the blocks' contents shown, a PDF written", async () => {
    const page = await open();
    try {
      await page.emulateMedia({ media: "print" });
      expect(await page.locator("nav").isVisible()).toBe(false);
      const firstFailure = page.locator("section#glance ~ details").first();
      expect(await firstFailure.locator("blockquote.spec").first().isVisible()).toBe(true);
      const pdf = await page.pdf({ path: resolve(OUT, "html-report.pdf"), format: "A4" });
      expect(pdf.length).toBeGreaterThan(10_000);
    } finally {
      await page.close();
    }
  });
});
