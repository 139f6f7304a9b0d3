// The skeleton page in a real Chromium: it loads clean, the default scenario
// runs, and the inspector changes a running queue.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, open, screenshot, number, clock, clockPasses, stands, made, madePasses } from './harness.mjs';

const env = withBrowser();

/** Slows the client's network in the inspector, as lesson 1 does: the
 * socket drains `bytesPerS`, the sender's writes would block, and it thins. */
async function slowTheClient(page, bytesPerS = 120000) {
  await page.click('[data-node="socket"] .body');
  await page.fill('[data-testid="param-bandwidth_bytes_per_s-number"]', String(bytesPerS));
}

test('the page loads with no console error and shows the default scenario', async () => {
  const { page, errors } = await open(env.browser, env.url);
  for (const id of ['stream', 'sender', 'socket', 'client', 'requests', 'ping_requests', 'ping_replies', 'uplink', 'read', 'server']) {
    assert.equal(await page.locator(`[data-node="${id}"]`).count(), 1, `node ${id} drawn`);
  }
  assert.equal(await page.locator('.edge').count(), 9);
  await clockPasses(page, 1.5);
  await screenshot(page, 'default-scenario');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the default scenario runs: counters, clock and chart change over time', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await clockPasses(page, 0.5);
  const produced1 = await number(page, '[data-testid="total-produced"]');
  const chart1 = await page.locator('[data-testid="depth-chart"]').evaluate((c) => c.toDataURL());
  const clock1 = await clock(page);
  // Two simulated seconds later: the live stream sends 210 a second and is
  // never paused, so the producers make well over 150 a second.
  await clockPasses(page, clock1.t + 2);
  const produced2 = await number(page, '[data-testid="total-produced"]');
  assert.ok(produced2 - produced1 >= 300, `produced went from ${produced1} to ${produced2} in 2 simulated seconds`);
  await page.waitForFunction(
    (before) => document.querySelector('[data-testid="depth-chart"]')?.toDataURL() !== before,
    chart1,
  );
  // At 1 MB/s no write would block: nothing is thinned.
  assert.equal(await page.locator('[data-testid="drops-sender-thinned"]').count(), 0);
  // The stream sends 150 video frames a second, about 180 kB/s; slowed to
  // 120 kB/s, the socket's buffer fills, a write would block, and the
  // sender thins about 85 frames a second: in 4 s, hundreds.
  await slowTheClient(page);
  const slowedAt = (await clock(page)).t;
  await page.waitForSelector('[data-testid="drops-sender-thinned"]', { timeout: 10000 });
  await clockPasses(page, slowedAt + 4);
  const thinned = await number(page, '[data-testid="drops-sender-thinned"] .num');
  assert.ok(thinned >= 200, `${thinned} thinned in ${((await clock(page)).t - slowedAt).toFixed(2)} s`);
  assert.ok(Number(await page.locator('[data-testid="transitions-total"]').textContent()) > 0);
  // Pause stops the clock.
  await page.click('[data-testid="play"]');
  await stands(page);
  const frozen = await page.textContent('[data-testid="clock"]');
  await page.waitForTimeout(500);
  assert.equal(await page.textContent('[data-testid="clock"]'), frozen);
  // Conservation as the page shows it, read while paused.
  const [p, d, x, s] = await Promise.all(
    ['produced', 'delivered', 'dropped', 'in-system'].map((n) => number(page, `[data-testid="total-${n}"]`)),
  );
  assert.equal(p, d + x + s);
  assert.deepEqual(errors, []);
  await page.close();
});

test('at its soft limit the sender stops reading the client, never the live stream', async () => {
  const { page, errors } = await open(env.browser, env.url);
  // At 120 kB/s the sender thins but stays below its soft limit of 50:
  // the client's requests are read.
  await clockPasses(page, 1);
  const sender = page.locator('[data-node="sender"]');
  assert.notEqual(await sender.getAttribute('data-state'), 'SoftLimit');
  assert.equal(await page.locator('[data-node="requests"]').getAttribute('data-paused'), 'false');

  // A slower network: audio, control and replies alone need more than it
  // takes, so the sender climbs to its soft limit and stops reading the
  // client.
  await page.click('[data-node="socket"]');
  await page.fill('[data-testid="param-bandwidth_bytes_per_s-number"]', '40000');
  await page.waitForSelector('[data-node="requests"][data-paused="true"]', { timeout: 15000 });
  // Ping requests arriving meanwhile are read and left unanswered.
  await page.waitForSelector('[data-testid="drops-ping_requests-unanswered"]', { timeout: 15000 });
  // The pause lifts after sends: the requests are never stopped for good.
  await madePasses(page, 'requests', (await made(page, 'requests')) + 5, 15000);
  await page.click('[data-testid="play"]'); // pause to read a stable page
  await stands(page);
  // The live stream was never paused.
  assert.equal(await page.locator('[data-node="stream"]').getAttribute('data-paused'), 'false');
  assert.match(await page.textContent('[data-testid="transitions"]'), /SoftLimit/);
  await screenshot(page, 'soft-limit-reached');

  await page.click('[data-node="sender"]');
  // A soft limit above the hard one is refused inline; the last valid value stays.
  await page.fill('[data-testid="param-soft_limit-messages-number"]', '999');
  const error = await page.textContent('[data-testid="param-soft_limit-messages-error"]');
  assert.match(error, /must not exceed hard_limit\.messages/);
  assert.equal(await page.inputValue('[data-testid="param-soft_limit-messages"]'), '50');
  assert.deepEqual(errors, []);
  await page.close();
});

test('speed changes how fast simulated time passes, and reset starts again from zero', async () => {
  const { page, errors } = await open(env.browser, env.url);
  // The clock and the page's own timer, read together.
  const reading = () => page.evaluate(() => ({
    t: Number(/t = ([\d.]+) s/.exec(document.querySelector('[data-testid="clock"]').textContent)[1]),
    ms: performance.now(),
  }));
  for (const speed of [1, 10]) {
    await page.selectOption('[data-testid="speed"]', String(speed));
    await clockPasses(page, (await reading()).t);
    const start = await reading();
    await page.waitForFunction((until) => performance.now() > until, start.ms + 2000);
    const end = await reading();
    const asked = (speed * (end.ms - start.ms)) / 1000;
    const advanced = end.t - start.t;
    // The clock shows a reading at most 45 ms old at each end; a frame
    // longer than a quarter second (a loaded machine) simulates no more
    // than a quarter second's worth, so the clock may fall behind, never
    // run ahead. Half the pace asked for is far from the other speed (a
    // page that ignored the choice would be 10 times off).
    const slack = speed * 0.1;
    assert.ok(advanced <= asked + slack, `at ${speed}× the clock ran ${advanced} s in ${asked / speed} real s`);
    assert.ok(advanced >= 0.5 * asked - slack, `at ${speed}× the clock ran only ${advanced} s in ${asked / speed} real s`);
  }
  await page.click('[data-testid="play"]'); // pause
  await page.click('[data-testid="reset"]');
  assert.equal((await clock(page)).t, 0);
  assert.equal(await number(page, '[data-testid="total-produced"]'), 0);
  assert.equal(await page.locator('[data-node="sender"]').getAttribute('data-state'), 'Ready');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the event log shows state changes and drops, filters them, and selects a node on click', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await slowTheClient(page);
  await page.waitForSelector('[data-testid="transitions"] .entry.drop', { timeout: 10000 });
  await page.click('[data-testid="play"]'); // pause: a still log
  const entries = page.locator('[data-testid="transitions"] .entry');
  assert.ok(await page.locator('.entry.transition').count() > 0, 'state changes are logged');
  assert.match(await page.locator('.entry.drop').first().textContent(), /sender dropped \d+thinned/);
  // Filters hide a kind of entry and bring it back.
  await page.uncheck('[data-testid="log-filter-Drops"]');
  assert.equal(await page.locator('.entry.drop').count(), 0);
  assert.ok(await entries.count() > 0);
  await page.check('[data-testid="log-filter-Drops"]');
  assert.ok(await page.locator('.entry.drop').count() > 0);
  // An entry selects its node.
  await page.click('[data-node="client"] .body');
  assert.match(await page.textContent('.inspector h2'), /^client /);
  await page.locator('.entry.drop .entry-button').first().click();
  assert.match(await page.textContent('.inspector h2'), /^sender /);
  // "Selected nodes only": the client has no events.
  await page.click('[data-node="client"] .body');
  await page.check('[data-testid="log-only-selected"]');
  assert.equal(await entries.count(), 0);
  assert.match(await page.textContent('.log'), /Nothing matches the filters/);
  await screenshot(page, 'event-log');
  assert.deepEqual(errors, []);
  await page.close();
});

test('charts: depth, bytes, throughput and latency tabs, several nodes together, and the state strip', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await clockPasses(page, 1.5);
  await page.click('[data-node="sender"] .body');
  await page.click('[data-node="client"] .body', { modifiers: ['Shift'] });
  await page.click('[data-testid="play"]'); // pause: a still chart
  assert.match(await page.textContent('.chart figcaption'), /^Depth of sender, client$/);
  assert.equal(await page.locator('[data-testid="strip-sender"] rect').count() > 0, true, 'the sender has a state strip');
  const picture = () => page.locator('[data-testid="depth-chart"]').evaluate((c) => c.toDataURL());
  let previous = await picture();
  for (const tab of ['bytes', 'throughput', 'latency']) {
    await page.click(`[data-testid="chart-tab-${tab}"]`);
    assert.equal(await page.getAttribute(`[data-testid="chart-tab-${tab}"]`, 'aria-selected'), 'true');
    assert.match(await page.textContent('.chart figcaption'), new RegExp(`^${tab}`, 'i'));
    await page.waitForFunction(
      (before) => document.querySelector('[data-testid="depth-chart"]')?.toDataURL() !== before,
      previous,
    );
    previous = await picture();
    await screenshot(page, `chart-${tab}`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('messages move along the edges as dots coloured by class, and a dropping node flashes', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.selectOption('[data-testid="speed"]', '5');
  await slowTheClient(page);
  // The key names the stream's three classes, one colour each.
  const legend = page.locator('[data-testid="class-legend"]');
  await legend.waitFor();
  for (const name of ['video', 'audio', 'control']) assert.match(await legend.textContent(), new RegExp(name));
  assert.match(await page.textContent('[data-testid="per-dot"]'), /one dot/);
  // Each class that crosses an edge has its own dotted line there, drawn
  // on the layer over the canvas (which says what it drew).
  const layer = page.locator('[data-testid="flow-dots"]').first();
  const drawn = (name) => layer.evaluate((c, name) => (c.getAttribute(name) || '').split(' ').filter(Boolean), name);
  await page.waitForFunction(() => (document.querySelector('[data-testid="flow-dots"]')?.dataset.offsets || '').split(' ').filter(Boolean).length >= 4);
  const colours = new Set(await drawn('data-colours')).size;
  assert.ok(colours >= 3, `${colours} class colours on the edges`);
  // The dots are painted on the layer, not only listed: count its pixels.
  const painted = await layer.evaluate((c) => {
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 128) n += 1;
    return n;
  });
  assert.ok(painted > 200, `${painted} pixels of dots painted`);
  // The dots move while playing…
  const offsets = async () => (await drawn('data-offsets')).join(' ');
  const before = await offsets();
  await page.waitForFunction(
    (b) => document.querySelector('[data-testid="flow-dots"]')?.getAttribute('data-offsets') !== b,
    before,
  );
  // …and the thinning queue flashes where it drops.
  await page.waitForSelector('[data-node="sender"] .drop-flash', { timeout: 15000 });
  assert.equal(await page.locator('[data-node="stream"] .drop-flash').count(), 0, 'the producer drops nothing');
  await screenshot(page, 'flows-and-drops');
  // Paused, the dots stand still.
  await page.click('[data-testid="play"]');
  await stands(page);
  const paused = await offsets();
  await page.waitForTimeout(400);
  assert.equal(await offsets(), paused, 'paused dots stay put');
  assert.deepEqual(errors, []);
  await page.close();
});

test('no block text runs past its border and the class key never covers a block', async () => {
  const { page, errors } = await open(env.browser, env.url);
  // A producer paused with a backlog ("paused · 37 waiting") and an id as
  // long as a lesson's, three classes, and blocks low on the canvas where
  // the key used to be drawn.
  const scenario = {
    version: 1, name: 'borders',
    nodes: [
      { id: 'producer_of_requests', kind: 'producer', position: { x: 120, y: 400 }, arrivals: { process: 'poisson', rate_per_s: 30 },
        classes: [{ name: 'video', weight: 3 }, { name: 'audio' }, { name: 'control' }] },
      { id: 'queue1', kind: 'queue', position: { x: 380, y: 400 }, soft_limit: { messages: 20 }, hard_limit: { messages: 60 } },
      { id: 'consumer1', kind: 'consumer', position: { x: 640, y: 400 }, service_time: { dist: 'exponential', mean: 0.05 } },
    ],
    edges: [{ from: 'producer_of_requests', to: 'queue1' }, { from: 'queue1', to: 'consumer1' }],
  };
  await page.setInputFiles('[data-testid="import-file"]', { name: 'borders.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(scenario)) });
  await page.waitForSelector('[data-node="producer_of_requests"]');
  await page.waitForFunction(() => /waiting/.test(document.querySelector('[data-node="producer_of_requests"] .status')?.textContent ?? ''), null, { timeout: 20000 });
  for (const id of ['producer_of_requests', 'queue1', 'consumer1']) {
    const body = await page.locator(`[data-node="${id}"] .body`).boundingBox();
    for (const line of ['id', 'status', 'figure']) {
      const text = await page.locator(`[data-node="${id}"] text.${line}`).boundingBox();
      assert.ok(text.x + text.width <= body.x + body.width - 4, `${id}'s ${line} runs to ${text.x + text.width}, its border is at ${body.x + body.width}`);
    }
    const key = await page.locator('[data-testid="class-legend"]').boundingBox();
    const apart = key.y >= body.y + body.height || key.y + key.height <= body.y || key.x >= body.x + body.width || key.x + key.width <= body.x;
    assert.ok(apart, `the class key covers ${id}`);
  }
  await screenshot(page, 'block-borders');
  assert.deepEqual(errors, []);
  await page.close();
});
