// The inspector in a real Chromium: every block kind shows its parameters
// with units and explanations; a change applies while the simulation runs;
// a refused value is explained inline and the last valid one stays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, open, screenshot, clock, clockPasses, clockMoves, made } from './harness.mjs';

const env = withBrowser();

const KINDS = ['producer', 'queue', 'consumer', 'router', 'window', 'credit', 'rate_limiter',
  'concurrency_limiter', 'link', 'dispatcher', 'resource_pool', 'product_limiter'];

test('every block kind has its parameters in the inspector, with units and explanations', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.click('[data-testid="play"]'); // pause
  for (const kind of KINDS) {
    await page.focus(`.palette-item[data-kind="${kind}"]`);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`[data-node="${kind}1"]`);
    // The new block is selected and the inspector shows it.
    assert.match(await page.textContent('.inspector h2'), new RegExp(`^${kind}1 `));
    const rows = page.locator('.inspector .param');
    const count = await rows.count();
    assert.ok(count >= 1, `${kind}: ${count} parameters`);
    for (let i = 0; i < count; i++) {
      const row = rows.nth(i);
      const label = (await row.locator('.param-label').first().textContent()).trim();
      assert.ok(label.length > 0, `${kind}: parameter ${i} has a label`);
      // Every control has an accessible name.
      for (const control of await row.locator('input, select, textarea').all()) {
        const name = (await control.getAttribute('aria-label')) ?? '';
        assert.ok(name.length > 0, `${kind}/${label}: a control without a name`);
      }
    }
    if (kind === 'dispatcher') await screenshot(page, 'inspector-dispatcher');
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('a parameter changed while running applies at once', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.click('[data-node="stream"]');
  // The producer's rate, live: from its default to a trickle.
  const rate = page.locator('[data-testid="param-arrivals-rate_per_s-number"]');
  assert.ok(Number(await rate.inputValue()) > 50);
  await clockPasses(page, 0.5);
  await rate.fill('0.5');
  // Judged over simulated time read from the clock: made per simulated
  // second, whatever the machine's pace.
  // The stream's own count: the client's requests and pings are made
  // beside it.
  const [before, t0] = [await made(page, 'stream'), (await clock(page)).t];
  await clockPasses(page, t0 + 4);
  const [after, t1] = [await made(page, 'stream'), (await clock(page)).t];
  // Poisson at 0.5 a second: over 4 s or so, 2 on average; 9 is beyond
  // five standard deviations (the clock and the counter are read a frame
  // apart, so allow a second more).
  assert.ok(after - before <= 9, `at 0.5 a second, ${after - before} made in ${(t1 - t0).toFixed(2)} simulated s`);
  await clockMoves(page);

  // The client's service time becomes log-normal: its spread appears, and
  // the mean is kept.
  await page.click('[data-node="client"]');
  assert.equal(await page.inputValue('[data-testid="param-service_time"]'), 'exponential');
  const mean = await page.inputValue('[data-testid="param-service_time-mean-number"]');
  await page.selectOption('[data-testid="param-service_time"]', 'log_normal');
  await page.waitForSelector('[data-testid="param-service_time-cv"]');
  assert.equal(await page.inputValue('[data-testid="param-service_time-mean-number"]'), mean);
  await screenshot(page, 'inspector-consumer');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a refused value is explained inline and the last valid value stays', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.focus('.palette-item[data-kind="window"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-node="window1"]');
  // A window of 0 messages and 0 bytes bounds nothing: refused.
  await page.fill('[data-testid="param-max_messages-number"]', '0');
  const error = await page.textContent('[data-testid="param-max_messages-error"]');
  assert.match(error, /max_messages|max_bytes/);
  // The block is still there, a window (its label names it whole, however
  // small the canvas draws it).
  const label = await page.getAttribute('[data-node="window1"]', 'aria-label');
  assert.ok(/\bWindow\b/.test(label) && /\bwindow1\b/.test(label), label);
  // The range still shows the value in force, and a valid one clears the error.
  assert.equal(await page.inputValue('[data-testid="param-max_messages"]'), '8');
  await page.fill('[data-testid="param-max_messages-number"]', '3');
  await page.waitForSelector('[data-testid="param-max_messages-error"]', { state: 'detached', timeout: 5000 });
  assert.equal(await page.inputValue('[data-testid="param-max_messages"]'), '3');
  // Not a whole number: the engine's typed set refuses it, saying why.
  await page.fill('[data-testid="param-max_messages-number"]', '2.5');
  assert.match(await page.textContent('[data-testid="param-max_messages-error"]'), /whole number/);
  // A list edited as JSON: malformed text is refused, saying why.
  await page.focus('.palette-item[data-kind="consumer"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-node="consumer1"]');
  await page.fill('[data-testid="param-outages"]', '[{"from_s": 1, "to_s": ');
  await page.press('[data-testid="param-outages"]', 'Tab');
  assert.match(await page.textContent('[data-testid="param-outages-error"]'), /not valid JSON/);
  // What was typed stays to be mended, through the redraw that showed the
  // error and those of the running page.
  await page.waitForTimeout(300);
  assert.equal(await page.inputValue('[data-testid="param-outages"]'), '[{"from_s": 1, "to_s": ');
  await page.fill('[data-testid="param-outages"]', '[{"from_s": 1, "to_s": 2}]');
  await page.press('[data-testid="param-outages"]', 'Tab');
  // (The page draws again after the change event: wait for it.)
  await page.waitForSelector('[data-testid="param-outages-error"]', { state: 'detached', timeout: 5000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('sizes and durations take the suffixes a proxy configuration uses', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.click('[data-testid="play"]'); // pause
  await page.click('[data-node="client"]');
  // 8ms for the client's mean service time: read as 0.008 s.
  const mean = '[data-testid="param-service_time-mean-number"]';
  await page.fill(mean, '8ms');
  await page.waitForFunction((sel) => document.querySelector(sel).value === '0.008', mean);
  assert.equal(await page.locator('[data-testid="param-service_time-error"]').count(), 0);
  // A size where a duration is expected is refused, saying so (at the
  // distribution the parameter belongs to).
  await page.fill(mean, '16kib');
  assert.match(await page.textContent('[data-testid="param-service_time-error"]'), /is a size; expected a duration/);
  // A window's byte bound takes 16kib as 16384.
  await page.focus('.palette-item[data-kind="window"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-node="window1"]');
  await page.fill('[data-testid="param-max_bytes-number"]', '16kib');
  await page.waitForFunction(() => document.querySelector('[data-testid="param-max_bytes-number"]').value === '16384');
  assert.deepEqual(errors, []);
  await page.close();
});

test("a router's policy brings the fields it needs, in a working form", async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.click('[data-testid="play"]'); // pause
  await page.focus('.palette-item[data-kind="router"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-node="router1"]');
  assert.equal(await page.locator('[data-testid="param-weights"]').count(), 0, 'no weights under round robin');
  await page.selectOption('[data-testid="param-policy"]', 'by_weight');
  await page.waitForSelector('[data-testid="param-weights"]');
  assert.equal(await page.locator('[data-testid="param-policy-error"]').count(), 0, 'the switch was accepted');
  await page.selectOption('[data-testid="param-policy"]', 'by_class');
  await page.waitForSelector('[data-testid="param-classes"]');
  assert.equal(await page.locator('[data-testid="param-weights"]').count(), 0, 'weights gone under by class');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a slider dragged is one edit, and a number typed is one edit', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.click('[data-node="sender"]');
  const number = page.getByTestId('param-soft_limit-messages-number');
  const start = await number.inputValue();
  assert.equal(await page.isDisabled('[data-testid="undo"]'), true, 'nothing to undo yet');
  // A drag along the slider passes through many values.
  const slider = page.getByTestId('param-soft_limit-messages');
  const box = await slider.boundingBox();
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + 4, y);
  await page.mouse.down();
  for (let k = 1; k <= 20; k++) await page.mouse.move(box.x + 4 + (k * (box.width - 8)) / 40, y);
  await page.mouse.up();
  const dragged = await number.inputValue();
  assert.notEqual(dragged, start);
  // Typed key by key: one more edit.
  await number.selectText();
  await number.pressSequentially('42');
  await number.press('Enter');
  assert.equal(await number.inputValue(), '42');
  // Two undos: the typing, then the whole drag; then nothing is left.
  await page.click('[data-testid="undo"]');
  assert.equal(await number.inputValue(), dragged);
  await page.click('[data-testid="undo"]');
  assert.equal(await number.inputValue(), start);
  assert.equal(await page.isDisabled('[data-testid="undo"]'), true, 'one drag, one typing: two undos in all');
  assert.deepEqual(errors, []);
  await page.close();
});

test('priority orders say that the lower number goes first', async () => {
  const { page, errors } = await open(env.browser, env.url);
  const scenario = {
    version: 1, name: 'priorities',
    nodes: [
      { id: 'p', kind: 'producer', arrivals: { process: 'poisson', rate_per_s: 5 } },
      { id: 'q', kind: 'queue', order: 'priority' },
      { id: 'd', kind: 'dispatcher', discipline: 'priority', service_time: { dist: 'fixed', value: 0.01 } },
    ],
    edges: [{ from: 'p', to: 'q' }, { from: 'q', to: 'd' }],
  };
  await page.setInputFiles('[data-testid="import-file"]', { name: 'p.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(scenario)) });
  await page.waitForSelector('[data-node="q"]');
  // SObjectizer's article gives the urgent message the higher number;
  // Sluice serves the lower first, as super-queue does: every place that
  // sets a priority says which way it runs.
  await page.locator('[data-node="q"] .body').click();
  const inspector = page.getByTestId('inspector');
  assert.match(await inspector.locator('option[value="priority"]').first().textContent(), /lower number first/);
  assert.match(await inspector.textContent(), /Lower numbers are served first/);
  await page.locator('[data-node="d"] .body').click();
  assert.match(await inspector.locator('option[value="priority"]').first().textContent(), /lower number first/);
  assert.match(await inspector.textContent(), /Lower numbers are served first/);
  assert.deepEqual(errors, []);
  await page.close();
});
