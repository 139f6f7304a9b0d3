// Writes the README's and the docs' pictures: docs/screenshot.png, the
// first lesson's third step a few simulated seconds in;
// docs/screenshot-ab.png, lesson 3's A/B comparison with its totals;
// docs/screenshot-phone.png, lesson 1 on a 390 × 844 phone; and
// docs/screenshot-glossary.png, the glossary opened at "Overloaded" from
// the word under the chart; docs/screenshot-lesson-1280.png, lesson 1's
// second step on a 1280 × 720 laptop; docs/screenshot-present.png, lesson
// 3's comparing step in presentation mode at 1920 × 1080. Run with
// `make screenshot`.
import { join } from 'node:path';
import { serve, launch, open } from './harness.mjs';

const out = join(process.cwd(), 'docs', 'screenshot.png');
const outAb = join(process.cwd(), 'docs', 'screenshot-ab.png');
const outPhone = join(process.cwd(), 'docs', 'screenshot-phone.png');
const outGlossary = join(process.cwd(), 'docs', 'screenshot-glossary.png');
const outLaptop = join(process.cwd(), 'docs', 'screenshot-lesson-1280.png');
const outPresent = join(process.cwd(), 'docs', 'screenshot-present.png');
const { server, url } = await serve();
const browser = await launch();
try {
  // The first lesson, opened from the picker a first visit shows, with
  // its fourth step tried: a network too slow for the audio and replies,
  // the sender at its soft limit, video thinned, the uplink not read and
  // the client's requests waiting in it.
  const { page, errors } = await open(browser, url, { picker: true });
  await page.getByTestId('lesson-1').click();
  await page.getByTestId('lesson-panel').waitFor();
  await page.getByTestId('step-4-try').click();
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

  // The glossary, opened from the word "Overloaded" under the chart.
  await page.click('[data-testid="ab-toggle"]');
  await page.locator('g.node.queue .body').first().click();
  await page.locator('.strips button.term', { hasText: 'Overloaded' }).first().click();
  await page.getByTestId('glossary').waitFor();
  await page.waitForTimeout(300);
  await page.screenshot({ path: outGlossary });
  await page.getByTestId('glossary-close').click();

  // A phone: lesson 1 a few seconds in, the first screen.
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, hasTouch: true, isMobile: true });
  phone.on('pageerror', (err) => errors.push(String(err)));
  await phone.goto(url);
  await phone.getByTestId('lesson-1').tap();
  await phone.getByTestId('lesson-panel').waitFor();
  await phone.waitForTimeout(3000);
  await phone.screenshot({ path: outPhone });

  // A laptop: lesson 1's second step from its link, the step, its verdict
  // and the canvas on one screen.
  const laptop = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  laptop.on('pageerror', (err) => errors.push(String(err)));
  await laptop.goto(`${url}#lesson=1&step=2`);
  await laptop.getByTestId('step-2-skip').click();
  await laptop.waitForFunction(() => document.querySelector('[data-testid="step-2-verdict"]')?.dataset.state === 'passed', null, { timeout: 60_000 });
  await laptop.waitForTimeout(1500);
  await laptop.screenshot({ path: outLaptop });

  // A projector: lesson 3's comparing step in presentation mode.
  const room = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  room.on('pageerror', (err) => errors.push(String(err)));
  await room.goto(`${url}?present#lesson=3&step=3`);
  await room.getByTestId('step-3-skip').click();
  await room.waitForFunction(() => document.querySelector('[data-testid="step-3-verdict"]')?.dataset.state === 'passed', null, { timeout: 60_000 });
  await room.waitForTimeout(1500);
  await room.screenshot({ path: outPresent });
  if (errors.length) throw new Error(`console errors: ${errors.join('; ')}`);
  console.log(`wrote ${out}, ${outAb}, ${outPhone}, ${outGlossary}, ${outLaptop} and ${outPresent}`);
} finally {
  await browser.close();
  server.close();
}
