// A phone (390 × 844, touch): the page fits the screen, every control of
// the top bar can be reached, every lesson of the picker can be seen and
// tapped, a lesson step runs by touch, and blocks are dragged and
// connected with a finger (touch events through the browser's own gesture
// handling, so that CSS touch-action is in force).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withBrowser, artifacts } from './harness.mjs';

const env = withBrowser();
const W = 390;
const lessonCount = readdirSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'lessons')).filter((f) => f.endsWith('.json')).length;

async function phone(hash = '') {
  const page = await env.browser.newPage({ viewport: { width: W, height: 844 }, deviceScaleFactor: 2, hasTouch: true, isMobile: true });
  const errors = [];
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  page.on('pageerror', (err) => errors.push(String(err)));
  await page.goto(env.url + hash);
  return { page, errors };
}

/** Elements that reach past the screen's right edge without a box around them that clips them. */
const overflowing = (width) =>
  [...document.querySelectorAll('body *')]
    .filter((el) => {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= width + 0.5) return false;
      for (let a = el.parentElement; a; a = a.parentElement) {
        if (a.tagName.toLowerCase() === 'svg' || getComputedStyle(a).overflowX !== 'visible') return a.getBoundingClientRect().right > width + 0.5;
      }
      return true;
    })
    .map((el) => `${el.tagName.toLowerCase()}.${el.className?.baseVal ?? el.className} ${Math.round(el.getBoundingClientRect().right)}`)
    .slice(0, 10);

/** Whether a tap at the element's centre would land on it (on screen, not covered). */
async function tappable(page, locator) {
  await locator.scrollIntoViewIfNeeded();
  const box = await locator.boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= W + 0.5, `${locator} spans ${box?.x} to ${box && box.x + box.width}`);
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return el === hit || el.contains(hit);
  });
}

/** Drags with one finger from `from` to `to` in `steps` moves. */
async function touchDrag(page, from, to, steps = 12) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: from.x, y: from.y }] });
  for (let i = 1; i <= steps; i++) {
    const x = from.x + ((to.x - from.x) * i) / steps;
    const y = from.y + ((to.y - from.y) * i) / steps;
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y }] });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

async function centreOf(locator) {
  const b = await locator.boundingBox();
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

test('on a phone the page fits the screen, the top bar and every lesson can be reached, and text and targets are large enough', async () => {
  const { page, errors } = await phone();
  const picker = page.getByTestId('lesson-picker');
  await picker.waitFor();
  // The picker: one column, every lesson on screen when scrolled to, and a tap on it lands on it.
  for (let n = 1; n <= lessonCount; n++) {
    assert.ok(await tappable(page, page.getByTestId(`lesson-${n}`)), `lesson ${n} can be tapped`);
  }
  await page.screenshot({ path: join(artifacts, 'phone-picker.png') });
  await page.getByTestId('lesson-1').tap();
  await page.getByTestId('lesson-panel').waitFor();
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(artifacts, 'phone-lesson.png') });
  assert.deepEqual(await page.evaluate(overflowing, W), [], 'nothing reaches past the screen');
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= W);

  // Every control of the top bar is on screen and uncovered.
  for (const id of ['lessons', 'glossary-open', 'play', 'step', 'reset', 'speed', 'seed', 'clock']) {
    assert.ok(await tappable(page, page.getByTestId(id)), `${id} can be tapped`);
  }
  // The lesson and the canvas come first: the lesson at the top, the canvas
  // starting within the first screen, the palette after both.
  const top = async (sel) => (await page.locator(sel).boundingBox()).y + (await page.evaluate(() => window.scrollY));
  assert.ok((await top('[data-testid="lesson-panel"]')) < 300);
  assert.ok((await top('svg.graph')) < 844, `the canvas starts at ${await top('svg.graph')}`);
  assert.ok((await top('.palette')) > (await top('svg.graph')));

  // Text at least 12 px: the page's, and the blocks' as drawn on the canvas.
  const small = await page.evaluate(() => {
    const found = [];
    for (const el of document.querySelectorAll('body *')) {
      const text = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      const r = el.getBoundingClientRect();
      if (!text || r.width === 0 || getComputedStyle(el).visibility === 'hidden' || el.closest('.visually-hidden, [aria-hidden="true"], title')) continue;
      const size = parseFloat(getComputedStyle(el).fontSize) * (el instanceof SVGElement ? el.getScreenCTM().a : 1);
      if (size < 11.95) found.push(`${el.tagName.toLowerCase()}.${el.className?.baseVal ?? el.className} "${el.textContent.trim().slice(0, 20)}" ${size.toFixed(1)}px`);
    }
    return found.slice(0, 10);
  });
  assert.deepEqual(small, [], 'no text under 12 px');

  // Touch targets at least 44 px high in the bars, the lesson, the canvas's
  // view, the charts and their key, the inspector (its sliders too) and
  // the event log's filters.
  assert.ok(await page.locator('.inspector input[type="range"]').count() > 0, 'a block is selected: its sliders are there');
  assert.ok(await page.locator('.panel.log label.filter').count() > 0, 'the log\'s filters are there');
  assert.ok(await page.locator('.legend button.term').count() > 0, 'the state key is there');
  const tiny = await page.evaluate(() =>
    [...document.querySelectorAll('.topbar :is(button, select, input), .toolbar button, .lesson button, .view-controls button, .tabs button, .inspector :is(button, select, input[type="range"]), .panel.log label.filter, .legend button.term')]
      .filter((el) => el.getBoundingClientRect().width > 0)
      .map((el) => [el.dataset.testid ?? el.getAttribute('aria-label') ?? el.textContent.trim(), el.getBoundingClientRect()])
      .filter(([, r]) => r.height < 44 || r.width < 44)
      .map(([name, r]) => `${name} ${Math.round(r.width)}x${Math.round(r.height)}`),
  );
  assert.deepEqual(tiny, [], 'touch targets of at least 44 × 44 px');
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a phone a lesson step runs by touch, and a finger drags and connects blocks', async () => {
  const { page, errors } = await phone();
  await page.getByTestId('lesson-picker').waitFor();
  await page.getByTestId('lesson-1').tap();
  await page.getByTestId('lesson-panel').waitFor();
  await page.getByTestId('speed').selectOption('max');
  await page.getByTestId('step-1-try').tap();
  await page.waitForFunction(() => ['passed', 'failed'].includes(document.querySelector('[data-testid="step-1-verdict"]')?.dataset.state), null, { timeout: 90_000 });
  assert.equal(await page.getByTestId('step-1-verdict').getAttribute('data-state'), 'passed');

  // From an empty canvas: two blocks added by tapping the palette.
  await page.getByTestId('new').tap();
  await page.locator('.palette-item[data-kind="producer"]').tap();
  await page.locator('.palette-item[data-kind="consumer"]').tap();
  await page.waitForSelector('[data-node="consumer1"]');
  const graph = page.locator('svg.graph');
  await graph.scrollIntoViewIfNeeded();
  // A finger drags the consumer closer to the producer (across: a finger
  // moving up or down the canvas scrolls the page).
  const consumer = page.locator('[data-node="consumer1"] .body');
  const before = await page.getAttribute('[data-node="consumer1"]', 'transform');
  const c = await centreOf(consumer);
  const g = await graph.boundingBox();
  const target = { x: Math.min(c.x, g.x + g.width - 20) - 40, y: c.y };
  await touchDrag(page, { x: Math.min(c.x, g.x + g.width - 20), y: c.y }, target);
  assert.notEqual(await page.getAttribute('[data-node="consumer1"]', 'transform'), before, 'the block moved under the finger');
  // A finger drags from the producer's port onto the consumer: connected.
  const onConsumer = await centreOf(consumer);
  await touchDrag(page, await centreOf(page.locator('[data-port="producer1"]')), { x: Math.min(onConsumer.x, g.x + g.width - 20), y: onConsumer.y });
  await page.waitForSelector('.edge', { state: 'attached', timeout: 3000 });
  assert.equal(await page.locator('[data-testid="missing"]').count(), 0, 'connected: it runs');
  // A vertical swipe over the canvas's background scrolls the page rather than being caught.
  const y0 = await page.evaluate(() => window.scrollY);
  await touchDrag(page, { x: g.x + 10, y: g.y + g.height - 20 }, { x: g.x + 10, y: g.y + 40 }, 8);
  await page.waitForFunction((y0) => window.scrollY > y0, y0, { timeout: 3000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a phone a block added by a tap is selected, shown on the canvas and named; Fit shows every block', async () => {
  const { page, errors } = await phone();
  await page.getByTestId('picker-close').tap();
  await page.getByTestId('new').tap();
  const graph = page.locator('svg.graph');
  const within = async (id) => {
    // A block the view does not reach is not drawn at all.
    if ((await page.locator(`svg.graph [data-node="${id}"] .body`).count()) === 0) return false;
    const g = await graph.boundingBox();
    const b = await page.locator(`svg.graph [data-node="${id}"] .body`).boundingBox();
    return b && b.x >= g.x - 0.5 && b.y >= g.y - 0.5 && b.x + b.width <= g.x + g.width + 0.5 && b.y + b.height <= g.y + g.height + 0.5;
  };
  // Six taps: the free spots run four to a row, past a phone's width at a
  // readable size. A second tap of one kind is a second block, shown too.
  const kinds = ['producer', 'queue', 'consumer', 'router', 'link', 'queue'];
  const ids = [];
  for (const kind of kinds) {
    await page.locator(`.palette-item[data-kind="${kind}"]`).tap();
    // (Only the blocks the view reaches are drawn: the status names the new one.)
    await page.waitForFunction((ids) => {
      const id = /^Added (\S+), a new /.exec(document.querySelector('[data-testid="status"]')?.textContent ?? '')?.[1];
      return id && !ids.includes(id);
    }, ids);
    const status = await page.textContent('[data-testid="status"]');
    const id = /^Added (\S+), a new /.exec(status)?.[1];
    assert.ok(id, status);
    ids.push(id);
    assert.equal(await page.getAttribute(`svg.graph [data-node="${id}"]`, 'aria-pressed'), 'true', `${id} is selected`);
    await page.waitForFunction((id) => document.querySelector(`svg.graph [data-node="${id}"]`), id);
    assert.ok(await within(id), `${id}, just added, is on the canvas's screen`);
  }
  assert.equal(new Set(ids).size, kinds.length, `six blocks: ${ids}`);
  assert.ok(!(await within(ids[0])), 'the view followed the last one, away from the first');
  await page.getByTestId('fit').tap();
  await page.waitForTimeout(300);
  for (const id of ids) assert.ok(await within(id), `after Fit, ${id} is on the canvas's screen`);
  assert.equal(await page.getByTestId('fit').getAttribute('aria-pressed'), 'true');
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a phone the words are for a finger, and Several selects blocks by tapping as Shift-click does', async () => {
  const { page, errors } = await phone();
  await page.getByTestId('picker-close').tap();
  // The hints a mouse reads give way to a finger's.
  for (const hint of ['.chart-hint', '.palette .hint']) {
    assert.ok(await page.locator(`${hint} .touch-words`).isVisible(), `${hint} speaks of tapping`);
    assert.ok(!(await page.locator(`${hint} .mouse-words`).isVisible()), `${hint} does not speak of Shift or Enter`);
  }
  // Two blocks wholly on screen, not selected yet (the page opens with
  // one selected).
  const [a, b] = await page.evaluate(() => {
    const g = document.querySelector('svg.graph').getBoundingClientRect();
    return [...document.querySelectorAll('svg.graph [data-node][aria-pressed="false"]')]
      .filter((n) => { const r = n.querySelector('.body').getBoundingClientRect(); return r.left >= g.left && r.right <= g.right && r.top >= g.top && r.bottom <= g.bottom; })
      .map((n) => n.dataset.node).slice(0, 2);
  });
  assert.ok(a && b, 'two blocks on screen');
  const before = await page.locator('svg.graph [data-node][aria-pressed="true"]').count();
  await page.getByTestId('several').tap();
  assert.equal(await page.getByTestId('several').getAttribute('aria-pressed'), 'true');
  for (const id of [a, b]) await page.locator(`svg.graph [data-node="${id}"] .body`).tap();
  for (const id of [a, b]) assert.equal(await page.getAttribute(`svg.graph [data-node="${id}"]`, 'aria-pressed'), 'true', `${id} selected`);
  assert.equal(await page.locator('svg.graph [data-node][aria-pressed="true"]').count(), before + 2, 'added to what was selected');
  // A second tap takes one out; Several off, a tap selects one alone.
  await page.locator(`svg.graph [data-node="${a}"] .body`).tap();
  assert.equal(await page.getAttribute(`svg.graph [data-node="${a}"]`, 'aria-pressed'), 'false');
  await page.getByTestId('several').tap();
  await page.locator(`svg.graph [data-node="${a}"] .body`).tap();
  assert.equal(await page.getAttribute(`svg.graph [data-node="${b}"]`, 'aria-pressed'), 'false', 'a plain tap selects one alone');
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a phone a step that asks shows its field, and once the change is made the page goes back up to the step, watched', async () => {
  const { page, errors } = await phone('#lesson=1&step=6');
  await page.waitForFunction(() => document.querySelector('[data-testid="step-6-verdict"]')?.dataset.state === 'asking', null, { timeout: 30_000 });
  const onScreen = (selector) => page.evaluate((s) => {
    const r = document.querySelector(s).getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight;
  }, selector);
  await page.waitForFunction(() => {
    const r = document.querySelector('.param.asked')?.getBoundingClientRect();
    return r && r.top < innerHeight && r.bottom > 0;
  });
  assert.notEqual(await page.evaluate(() => document.activeElement?.tagName), 'INPUT', 'no keyboard raised by a focus');
  const rate = page.getByTestId('param-arrivals-rate_per_s-number');
  await rate.tap();
  await rate.fill('400');
  await rate.press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid="step-6-verdict"]')?.dataset.state === 'watching');
  await page.waitForTimeout(300);
  assert.ok(await onScreen('[data-testid="step-6-verdict"]'), 'the step being watched is on screen');
  assert.ok(await onScreen('[data-testid="step-6-skip"]'), 'and so is Skip ahead');
  assert.deepEqual(errors, []);
  await page.close();
});
