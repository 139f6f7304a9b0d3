// Writes the README's pictures: docs/screenshot.png, the first lesson's
// third step a few simulated seconds in, and docs/screenshot-ab.png, lesson 3's A/B
// comparison with its totals. Run with `make screenshot`.
import { join } from 'node:path';
import { serve, launch, open } from './harness.mjs';

const out = join(process.cwd(), 'docs', 'screenshot.png');
const outAb = join(process.cwd(), 'docs', 'screenshot-ab.png');
const { server, url } = await serve();
const browser = await launch();
try {
  // The first lesson, opened from the picker a first visit shows, with
  // its third step tried: a client too slow for the audio and replies, the
  // sender at its soft limit, video thinned, the client's requests paused.
  const { page, errors } = await open(browser, url, { picker: true });
  await page.getByTestId('lesson-1').click();
  await page.getByTestId('lesson-panel').waitFor();
  await page.getByTestId('step-3-try').click();
  await page.selectOption('[data-testid="speed"]', '5');
  await page.waitForTimeout(4000);
  await page.click('[data-testid="play"]');
  await page.locator('[data-node="sender"] .body').click();
  await page.screenshot({ path: out });

  // Lesson 3's comparing step: shared window (A) against one window per
  // destination (B), judged, with the throughput chart of both receivers.
  await page.getByTestId('all-lessons').click();
  await page.getByTestId('lesson-3').click();
  await page.selectOption('[data-testid="speed"]', '100');
  await page.getByTestId('step-3-try').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="step-3-verdict"]')?.dataset.state === 'passed', null, { timeout: 60_000 });
  await page.click('[data-testid="play"]');
  await page.locator('[data-testid="canvas-a"] [data-node="fast"]').click();
  await page.locator('[data-testid="canvas-a"] [data-node="far"]').click({ modifiers: ['Shift'] });
  await page.waitForTimeout(300);
  await page.locator('.stage').screenshot({ path: outAb });
  if (errors.length) throw new Error(`console errors: ${errors.join('; ')}`);
  console.log(`wrote ${out} and ${outAb}`);
} finally {
  await browser.close();
  server.close();
}
