// Every run ends, and the page answers, in a real Chromium: share links
// carrying scenarios that once froze the tab (an on/off producer whose
// periods floating point cannot write, a ramp falling to almost nothing)
// open and run; a loop that takes no time is stopped by the watchdog, and
// the page says so and stays editable; so is a queue without a capacity
// flooded faster than memory can hold, until it is given one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { withBrowser, open, screenshot, clock, clockPasses, stands } from './harness.mjs';

const env = withBrowser();

/** A share link for `scenario`, as the engine writes it (format 2: zlib, base64url). */
function shareLink(scenario) {
  return `${env.url}#s=2.${deflateSync(Buffer.from(JSON.stringify(scenario))).toString('base64url')}`;
}

test('share links that once froze the tab open, run and answer', async () => {
  const scenario = {
    version: 1,
    name: 'Bursts and a fading ramp',
    nodes: [
      { id: 'bursts', kind: 'producer', arrivals: { process: 'on_off', rate_per_s: 1000, on_s: 0.1, off_s: 0.2 } },
      { id: 'trickle', kind: 'producer', arrivals: { process: 'on_off', rate_per_s: 1, on_s: 0.1, off_s: 0.1 } },
      { id: 'fading', kind: 'producer', arrivals: { process: 'ramp', from_per_s: 1e9, to_per_s: 1e-9, over_s: 1e-6 } },
      { id: 'line', kind: 'queue' },
      { id: 'server', kind: 'consumer', workers: 8, service_time: { dist: 'exponential', mean: 0.005 } },
    ],
    edges: [
      { from: 'bursts', to: 'line' }, { from: 'trickle', to: 'line' }, { from: 'fading', to: 'line' },
      { from: 'line', to: 'server' },
    ],
  };
  const { page, errors } = await open(env.browser, shareLink(scenario));
  assert.match(await page.textContent('[data-testid="status"]'), /from the share link/);
  await page.selectOption('[data-testid="speed"]', '10');
  // Past 10 s, where the bursts once hung (at 2.7 s) on every run.
  await clockPasses(page, 12);
  // A button still answers: pause, and the clock stands still.
  await page.click('[data-testid="play"]');
  assert.equal(await page.getAttribute('[data-testid="play"]', 'aria-pressed'), 'false');
  const paused = (await stands(page)).t;
  await page.waitForTimeout(300);
  assert.equal((await clock(page)).t, paused, 'paused');
  assert.equal(await page.locator('[data-testid="stall"]').count(), 0, 'nothing stalled');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a loop that takes no time is stopped, said, and stays editable', async () => {
  const scenario = {
    version: 1,
    name: 'Clients that never wait',
    nodes: [
      { id: 'clients', kind: 'producer', arrivals: { process: 'closed_loop', clients: 2, think: { dist: 'fixed', value: 0 } } },
      { id: 'limit', kind: 'rate_limiter', on_excess: 'reject', rules: [{ scheme: 'anchored', limit: 1, span_s: 1 }] },
      { id: 'server', kind: 'consumer', workers: 4, service_time: { dist: 'fixed', value: 10 } },
    ],
    edges: [{ from: 'clients', to: 'limit' }, { from: 'limit', to: 'server' }],
  };
  const { page, errors } = await open(env.browser, shareLink(scenario));
  const stall = page.getByTestId('stall');
  await stall.waitFor({ timeout: 30000 });
  const text = await stall.textContent();
  assert.match(text, /^The simulation stopped at 0\.000000 s: 10000000 events in a row/);
  assert.match(text, /"clients", "limit"/);
  await screenshot(page, 'stall');
  // The page looks stopped: Play is off, the clock stands at the instant.
  assert.equal(await page.getAttribute('[data-testid="play"]', 'aria-pressed'), 'false');
  assert.equal((await clock(page)).t, 0);
  // The clock counts every event handled: the ten million in a row, and
  // those before the watchdog's first look at the instant (at most 4,096).
  await page.waitForFunction(() => {
    const events = Number(/(\d+) events/.exec(document.querySelector('[data-testid="clock"]')?.textContent ?? '')?.[1]);
    return events >= 10000000 && events <= 10004096;
  });
  // Play again: the run stays stopped, and says so.
  await page.click('[data-testid="play"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="play"]')?.getAttribute('aria-pressed') === 'false');
  // The scenario is whole and editable: take the limiter out, and the
  // stopped run gives way to a draft that says what it lacks.
  await page.click('[data-node="limit"]');
  await page.click('[data-testid="delete"]');
  await page.waitForSelector('[data-testid="missing"]');
  assert.equal(await stall.count(), 0, 'the stopped run is gone');
  assert.equal(await page.locator('[data-node="limit"]').count(), 0);
  // Undo brings it back, and the watchdog stops it again.
  await page.keyboard.press('Control+z');
  await page.waitForSelector('[data-node="limit"]');
  await stall.waitFor({ timeout: 30000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a flooded queue without a capacity is stopped before it takes the memory, and a capacity lets it run', async () => {
  const scenario = {
    version: 1,
    nodes: [
      { id: 'flood', kind: 'producer', arrivals: { process: 'poisson', rate_per_s: 1e9 } },
      { id: 'line', kind: 'queue' },
      { id: 'server', kind: 'consumer', service_time: { dist: 'exponential', mean: 0.1 } },
    ],
    edges: [{ from: 'flood', to: 'line' }, { from: 'line', to: 'server' }],
  };
  const { page, errors } = await open(env.browser, shareLink(scenario));
  // A scenario without a name is not quoted as "".
  assert.match(await page.textContent('[data-testid="status"]'), /^Opened the scenario from the share link/);
  const stall = page.getByTestId('stall');
  await stall.waitFor({ timeout: 60000 });
  const text = await stall.textContent();
  assert.match(text, /it held \d+ messages at once, more than the 5000000 a run may hold \(most of them in "line"/);
  assert.match(text, /give it a capacity/);
  assert.equal(await page.getAttribute('[data-testid="play"]', 'aria-pressed'), 'false');
  // Given a capacity, it runs on (dropping what does not fit).
  await page.click('[data-node="line"]');
  await page.getByTestId('param-capacity-messages-number').fill('1000');
  await page.getByTestId('param-capacity-messages-number').press('Enter');
  await page.waitForFunction(() => !document.querySelector('[data-testid="stall"]'));
  // The edit starts the run again by itself.
  assert.equal(await page.getAttribute('[data-testid="play"]', 'aria-pressed'), 'true');
  // Past where it stopped before: more events than the bound of messages.
  await page.waitForFunction(() => {
    const events = Number(/(\d+) events/.exec(document.querySelector('[data-testid="clock"]')?.textContent ?? '')?.[1]);
    return events > 7000000;
  }, null, { timeout: 60000 });
  assert.equal(await stall.count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a scenario of which nothing can run looks stopped', async () => {
  const scenario = {
    version: 1,
    nodes: [
      { id: 'lonely', kind: 'producer', arrivals: { process: 'poisson', rate_per_s: 5 } },
      { id: 'line', kind: 'queue' },
    ],
    edges: [{ from: 'lonely', to: 'line' }],
  };
  const { page, errors } = await open(env.browser, shareLink(scenario));
  assert.match(await page.textContent('[data-testid="missing"]'), /^Not running yet: .*line/);
  assert.equal(await page.isDisabled('[data-testid="play"]'), true);
  assert.equal(await page.textContent('[data-testid="play"]'), '▶ Play');
  assert.equal(await page.isDisabled('[data-testid="step"]'), true);
  assert.equal(await page.textContent('[data-testid="clock"]'), 'not running');
  assert.deepEqual(errors, []);
  await page.close();
});
