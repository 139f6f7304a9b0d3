// Words on the canvas as a room and a laptop see them: no block's text
// under 12 px at 1440 × 900 (A/B included), and in presentation mode
// (the Present button, or ?present) at least 16 px at 1280 × 720, with
// the editing tools put away; the top bar within a laptop's screen,
// however many events the clock has counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { withBrowser, open, root, screenshot } from './harness.mjs';

const env = withBrowser();

/** The smallest text drawn on a block, in screen pixels (to the browser's
 * precision: a hundredth of a pixel is allowed), and its words. */
async function smallest(page) {
  return page.evaluate(() => {
    let least = { px: Infinity, text: '' };
    for (const t of document.querySelectorAll('svg.graph [data-node] text')) {
      if (!t.textContent.trim() || !t.getBoundingClientRect().width) continue;
      const m = t.getScreenCTM();
      const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
      if (px < least.px) least = { px, text: t.textContent.trim() };
    }
    return least;
  });
}

/** Opens `url` at a size and lets the canvas measure itself and draw. */
async function at(url, width, height) {
  const { page, errors } = await open(env.browser, url, { width, height });
  await page.waitForTimeout(600);
  await page.locator('svg.graph [data-node]').first().waitFor();
  return { page, errors };
}

for (const [name, url, prepare] of [
  ['the page as it opens', '', null],
  ['every block at once', '', async (page) => {
    await page.setInputFiles('[data-testid="import-file"]', join(root, 'scenarios', 'every-block.json'));
    await page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent.includes('every-block.json'));
  }],
  ['A and B (lesson 2, step 3)', '#lesson=2&step=3', async (page) => page.getByTestId('ab-table').waitFor()],
]) {
  test(`at 1440 × 900, no text on a block is under 12 px: ${name}`, async () => {
    const { page, errors } = await at(env.url + url, 1440, 900);
    if (prepare) await prepare(page);
    await page.waitForTimeout(400);
    const least = await smallest(page);
    assert.ok(least.px >= 12 - 0.01, `"${least.text}" is ${least.px.toFixed(2)} px`);
    assert.ok(await page.locator('svg.graph [data-node] text').count() > 0);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('presentation mode: ?present puts the editing tools away and draws every word on a block at 16 px or more at 1280 × 720', async () => {
  const { page, errors } = await at(`${env.url}?present#lesson=1&step=2`, 1280, 720);
  assert.equal(await page.getByTestId('present').getAttribute('aria-pressed'), 'true');
  for (const hidden of ['.toolbox', '.toolbar', '[data-testid="inspector"]']) {
    assert.ok(!(await page.locator(hidden).first().isVisible()), `${hidden} is put away`);
  }
  await page.waitForTimeout(400);
  let least = await smallest(page);
  assert.ok(least.px >= 16 - 0.01, `"${least.text}" is ${least.px.toFixed(2)} px`);
  // The step's words and its button are large too.
  const stepPx = await page.getByTestId('step-2').evaluate((el) => parseFloat(getComputedStyle(el.querySelector('p')).fontSize));
  assert.ok(stepPx >= 18, `the step's text is ${stepPx} px`);
  const button = await page.getByTestId('step-2-try').boundingBox();
  assert.ok(button.height >= 44, `the step's button is ${button.height} px high`);
  await screenshot(page, 'present-1280');
  // The button leaves it: the tools come back, the words go back to size.
  await page.getByTestId('present').click();
  assert.equal(await page.getByTestId('present').getAttribute('aria-pressed'), 'false');
  await page.locator('.toolbar').waitFor();
  await page.waitForTimeout(400);
  least = await smallest(page);
  assert.ok(least.px >= 12 - 0.01 && least.px < 16, `back to the laptop's size: ${least.px.toFixed(2)} px`);
  // And into it again, from the button.
  await page.getByTestId('present').click();
  await page.waitForFunction(() => !document.querySelector('.toolbar')?.checkVisibility());
  assert.deepEqual(errors, []);
  await page.close();
});

test('presentation mode with A and B: both canvases side by side and wholly in view, every word on a block at 16 px or more at 1920 × 1080', async () => {
  const { page, errors } = await at(`${env.url}?present#lesson=2&step=3`, 1920, 1080);
  await page.getByTestId('ab-table').waitFor();
  await page.waitForTimeout(400);
  const least = await smallest(page);
  assert.ok(least.px >= 16 - 0.01, `"${least.text}" is ${least.px.toFixed(2)} px`);
  const a = await page.getByTestId('canvas-a').boundingBox();
  const b = await page.getByTestId('canvas-b').boundingBox();
  assert.ok(Math.abs(a.y - b.y) < 2 && b.x > a.x + a.width - 1, 'B beside A');
  // The step's chart is below them: the page scrolls towards it no further
  // than the canvases' tops, their labels in view.
  assert.ok(a.y >= -1 && a.y + a.height <= 1081, `A is at ${a.y} to ${a.y + a.height} px`);
  const table = await page.getByTestId('ab-table').boundingBox();
  assert.ok(table.y >= 0 && table.y < 1080, `the A/B table begins on screen, at ${table.y} px`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the top bar stays within a laptop\'s screen at 1440, 1280 and 1024 px, however many events the clock counts', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.waitForFunction(() => /\d+ events/.test(document.querySelector('[data-testid="clock"]')?.textContent ?? ''));
  const play = page.getByTestId('play');
  if ((await play.getAttribute('aria-pressed')) === 'true') await play.click();
  await page.waitForFunction(() => document.querySelector('[data-testid="play"]')?.getAttribute('aria-pressed') === 'false');
  // A long run's count, written where the page writes it (paused, the
  // clock is not drawn again).
  await page.evaluate(() => {
    const events = document.querySelector('[data-testid="clock"] .events');
    events.lastChild.textContent = '123456789 events';
  });
  for (const width of [1440, 1280, 1024]) {
    await page.setViewportSize({ width, height: 800 });
    await page.waitForTimeout(200);
    const past = await page.evaluate((w) => {
      const out = [];
      for (const el of document.querySelectorAll('.topbar *')) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && (r.right > w + 0.5 || r.left < -0.5)) out.push(`${el.tagName.toLowerCase()}.${el.className} ${Math.round(r.right)}`);
      }
      return { out, scroll: document.documentElement.scrollWidth };
    }, width);
    assert.deepEqual(past.out, [], `at ${width} px`);
    assert.ok(past.scroll <= width, `the page scrolls sideways at ${width} px (${past.scroll})`);
    assert.match(await page.textContent('[data-testid="clock"]'), /t = [\d.]+ s · 123456789 events/);
  }
  await screenshot(page, 'topbar-1024');
  assert.deepEqual(errors, []);
  await page.close();
});
