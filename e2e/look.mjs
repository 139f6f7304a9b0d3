// Opens a scenario file in the page as a share link and screenshots it at
// 1440 × 900 and 390 × 844, after it has run a while, with a block
// selected: a look at what a change did, as a person would see it.
//
//   make web build && node e2e/look.mjs FILE OUT [WAIT_MS] [BLOCK_ID]
//
// writes OUT-wide.png and OUT-phone.png.
import { serve, launch } from './harness.mjs';
import { execFileSync } from 'node:child_process';
const file = process.argv[2], out = process.argv[3], wait = Number(process.argv[4] ?? 3000);
const link = execFileSync('target/release/sluice', ['share', file]).toString().trim();
const frag = link.slice(link.indexOf('#'));
const { server, url } = await serve();
const browser = await launch();
try {
  for (const [w, h, tag] of [[1440, 900, 'wide'], [390, 844, 'phone']]) {
    const page = await browser.newPage({ viewport: { width: w, height: h } });
    await page.goto(url + frag);
    await page.waitForSelector('[data-node]');
    const close = page.getByTestId('picker-close');
    if ((await close.count()) > 0) await close.click();
    await page.waitForTimeout(wait);
    const sel = process.argv[5];
    // On a phone the block may lie outside the part of the canvas drawn.
    if (sel) await page.locator(`[data-node="${sel}"] .body`).click({ timeout: 3000 }).catch(() => {});
    await page.waitForTimeout(500);
    await page.screenshot({ path: `${out}-${tag}.png` });
  }
} finally { await browser.close(); server.close(); }
