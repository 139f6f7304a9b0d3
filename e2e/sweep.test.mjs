// The Sweep panel in a real Chromium: "Sweep this" on a field opens it;
// the sweep runs in a worker while the canvas keeps moving; points arrive
// on the chart and in the table; Cancel stops it; a point loads its value
// into the scenario (undoably); the table exports as CSV and the chart as
// PNG; a lesson's sweep step is judged on the sweep.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { withBrowser, open, screenshot, clockMoves, artifacts, accessibilityProblems, root } from './harness.mjs';
import { join } from 'node:path';

const env = withBrowser();

/** Fills the sweep form. */
async function fill(page, values) {
  for (const [key, value] of Object.entries(values)) {
    await page.getByTestId(`sweep-${key}`).fill(String(value));
  }
}

const rows = (page) => page.locator('[data-testid="sweep-table"] tbody tr').count();
const doneReps = async (page) => Number(await page.locator('[data-testid="sweep-progress"] progress').getAttribute('value'));

test('a sweep runs in a worker while the canvas moves, can be cancelled, and its points load and export', async () => {
  const { page, errors } = await open(env.browser, env.url);
  // The sender is selected as the page opens; sweep its soft limit.
  await page.getByTestId('param-soft_limit-messages-sweep').click();
  const panel = page.getByTestId('sweep-panel');
  await panel.waitFor();
  // It speaks words, the field's name in a tooltip.
  assert.match(await panel.locator('h2').textContent(), /sender: Soft limit \(messages\)/);
  assert.equal(await panel.locator('h2 span').getAttribute('title'), 'sender.soft_limit.messages');
  assert.equal(await page.locator('[data-testid="sweep-metric"] option[value="sender.drop_probability.thinned"]').textContent(), 'sender: share dropped as thinned');

  // A bad field is named, and nothing starts.
  await fill(page, { from: 'ten' });
  await page.getByTestId('sweep-start').click();
  assert.equal(await page.getByTestId('sweep-error').textContent(), 'From: "ten" is not a number');
  assert.equal(await page.getByTestId('sweep-progress').count(), 0);

  // A long sweep: points arrive while the simulation on the canvas goes on.
  await fill(page, { from: 20, to: 98, points: 14, reps: 40, until: 120 });
  await page.getByTestId('sweep-metric').selectOption('sender.disconnects_per_s');
  await page.getByTestId('sweep-start').click();
  assert.equal(await page.getByTestId('sweep-error').count(), 0);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="sweep-table"] tbody tr').length >= 1, null, { timeout: 60000 });
  assert.equal(await page.getByTestId('sweep-status').textContent(), 'Running');
  await clockMoves(page);
  assert.equal(await page.getByTestId('sweep-status').textContent(), 'Running', 'the canvas moved during the sweep');
  await screenshot(page, 'sweep-running');

  // Cancel: the worker stops, and so does the count.
  await page.getByTestId('sweep-cancel').click();
  assert.equal(await page.getByTestId('sweep-status').textContent(), 'Cancelled');
  const stopped = await doneReps(page);
  await page.waitForTimeout(700);
  assert.equal(await doneReps(page), stopped, 'no replication after Cancel');
  assert.ok(stopped < 14 * 40, `cancelled after ${stopped} replications`);

  // A short sweep to the end.
  await fill(page, { from: 20, to: 98, points: 5, reps: 3, until: 30 });
  await page.getByTestId('sweep-start').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="sweep-status"]')?.textContent === 'Done', null, { timeout: 60000 });
  assert.equal(await rows(page), 5);
  assert.match(await page.locator('[data-testid="sweep-progress"] .hint').textContent(), /5 of 5 points, 15 of 15 replications, [\d.]+ a second/);

  // A target across the chart: where the mean and its band cross it is
  // said beneath, as the table's figures give it (worked out here again).
  const table = await page.locator('[data-testid="sweep-table"] tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent)));
  const points = table.map(([x, m]) => [Number(x), ...m.split(' ± ').map(Number)]).sort((a, b) => a[0] - b[0]);
  const means = points.map((p) => p[1]);
  const target = (Math.min(...means) + Math.max(...means)) / 2;
  // A crossing is a change of side; a point on the target is on neither.
  const first = (level) => {
    let last = null;
    for (const p of points) {
      const d = level(p) - target;
      if (d === 0) continue;
      if (last && last[1] * d < 0) {
        const on = points.find((q) => q[0] > last[0] && q[0] < p[0] && level(q) === target);
        return on ? on[0] : last[0] + (p[0] - last[0]) * last[1] / (last[1] - d);
      }
      last = [p[0], d];
    }
    return null;
  };
  await fill(page, { target });
  const said = await page.getByTestId('sweep-crossing').textContent();
  const expected = first((p) => p[1]);
  if (expected === null) {
    assert.match(said, /^The (mean does not cross|95% band (stays wholly|does not leave))/, said);
  } else {
    const at = /crosses [\d.e+-]+ at about ([\d.e+-]+);/.exec(said);
    assert.ok(at, said);
    // The table's figures have four significant digits: a little slack.
    assert.ok(Math.abs(Number(at[1]) - expected) <= 0.02 * Math.abs(expected) + 0.5, `${said}: expected about ${expected}`);
  }
  await page.getByTestId('sweep-log').click();
  assert.equal(await page.getByTestId('sweep-log').getAttribute('aria-pressed'), 'true');
  await screenshot(page, 'sweep-target-log');
  await page.getByTestId('sweep-log').click();
  await fill(page, { target: '' });
  assert.equal(await page.getByTestId('sweep-crossing').count(), 0);

  // Clicking the chart's last point loads its value; Undo takes it back.
  const field = page.getByTestId('param-soft_limit-messages-number');
  assert.equal(await field.inputValue(), '50');
  await page.getByTestId('sweep-chart').scrollIntoViewIfNeeded();
  const box = await page.getByTestId('sweep-chart').boundingBox();
  await page.mouse.click(box.x + box.width - 30, box.y + box.height / 2);
  await page.waitForFunction(() => document.querySelector('[data-testid="param-soft_limit-messages-number"]')?.value === '98');
  await page.keyboard.press('Control+z');
  await page.waitForFunction(() => document.querySelector('[data-testid="param-soft_limit-messages-number"]')?.value === '50');
  // "Use" in the table does the same, from the keyboard too.
  await page.getByTestId('sweep-use-40').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid="param-soft_limit-messages-number"]')?.value === '40');

  // The table as CSV: the varied value, then each metric's mean and interval.
  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('sweep-csv').click()]);
  assert.equal(csv.suggestedFilename(), 'sweep-sender.soft_limit.messages.csv');
  const lines = (await readFile(await csv.path(), 'utf8')).trim().split('\n');
  assert.equal(lines.length, 6, 'a header and five points');
  assert.match(lines[0], /^sender\.soft_limit\.messages,.*sender\.disconnects_per_s_mean,sender\.disconnects_per_s_ci95/);
  assert.deepEqual(lines.slice(1).map((l) => l.split(',')[0]), ['20', '40', '59', '79', '98']);
  const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('sweep-png').click()]);
  const bytes = await readFile(await png.path());
  assert.equal(bytes.subarray(1, 4).toString(), 'PNG');
  await screenshot(page, 'sweep-done');
  // Named controls, enough contrast, a table with headers: axe-core finds
  // nothing against WCAG 2.1 AA in the panel or the inspector's fields.
  assert.deepEqual(await accessibilityProblems(page, '[data-testid="sweep-panel"]'), []);
  assert.deepEqual(await accessibilityProblems(page, '[data-testid="inspector"]'), []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a target across the chart says where the mean wait and its band cross it, as the table gives them', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.setInputFiles('[data-testid="import-file"]', join(root, 'scenarios', 'queueing-theory.json'));
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent.includes('queueing-theory.json'));
  await page.click('[data-node="arrivals"] .body');
  await page.getByTestId('param-arrivals-rate_per_s-sweep').click();
  assert.match(await page.locator('[data-testid="sweep-panel"] h2').textContent(), /arrivals: Arrivals, Rate \(messages\/s\)/);
  await fill(page, { from: 2, to: 9, points: 8, reps: 4, until: 300 });
  await page.getByTestId('sweep-metric').selectOption('line.mean_wait_s');
  await page.getByTestId('sweep-start').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="sweep-status"]')?.textContent === 'Done', null, { timeout: 60000 });
  // M/M/1 with μ = 10: Wq = λ / (μ(μ − λ)) passes 0.2 s at λ ≈ 6.7.
  await fill(page, { target: 0.2 });
  const table = await page.locator('[data-testid="sweep-table"] tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent)));
  const points = table.map(([x, m]) => [Number(x), ...m.split(' ± ').map(Number)]).sort((a, b) => a[0] - b[0]);
  const cross = (level) => {
    for (let i = 0; i + 1 < points.length; i++) {
      const [a, b] = [level(points[i]) - 0.2, level(points[i + 1]) - 0.2];
      if (a * b < 0) return points[i][0] + (points[i + 1][0] - points[i][0]) * a / (a - b);
    }
    return null;
  };
  const said = await page.getByTestId('sweep-crossing').textContent();
  const m = /^The mean crosses 0\.2000 at about ([\d.]+); the 95% band between ([\d.]+) and ([\d.]+)\.$/.exec(said);
  assert.ok(m, said);
  const near = (shown, expected) => Math.abs(Number(shown) - expected) <= 0.02;
  const [mean, low, high] = [cross((p) => p[1]), cross((p) => p[1] - p[2]), cross((p) => p[1] + p[2])];
  assert.ok(near(m[1], mean), `${said}: the mean at ${mean}`);
  assert.ok(near(m[2], Math.min(low, high)) && near(m[3], Math.max(low, high)), `${said}: the band at ${low} and ${high}`);
  assert.ok(Number(m[1]) > 6 && Number(m[1]) < 7.5, said);
  await screenshot(page, 'sweep-target');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a second metric goes on its own axis and beside the first in the table: the wait and what it buys', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.setInputFiles('[data-testid="import-file"]', join(root, 'scenarios', 'queueing-theory.json'));
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent.includes('queueing-theory.json'));
  await page.click('[data-node="arrivals"] .body');
  await page.getByTestId('param-arrivals-rate_per_s-sweep').click();
  await fill(page, { from: 2, to: 8, points: 4, reps: 3, until: 300 });
  await page.getByTestId('sweep-metric').selectOption('line.mean_wait_s');
  await page.getByTestId('sweep-also').selectOption('server.throughput_per_s');
  await page.getByTestId('sweep-start').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="sweep-status"]')?.textContent === 'Done', null, { timeout: 60000 });
  const head = await page.locator('[data-testid="sweep-table"] thead th').allTextContents();
  assert.deepEqual(head.slice(0, 4), ['arrivals: Arrivals, Rate (messages/s)', 'line: mean wait (s) (95%)', 'theory', 'server: throughput (a second) (95%)']);
  assert.match(await page.getByTestId('sweep-also-legend').textContent(), /\(right axis\)/);
  // M/M/1 with μ = 10 and no bound: everything offered is served, so the
  // throughput is the arrival rate, while the wait grows as λ/(μ(μ − λ)).
  const table = await page.locator('[data-testid="sweep-table"] tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 4).map((td) => td.textContent)));
  for (const [x, wait, , served] of table) {
    const [rate, lambda] = [Number(served.split(' ± ')[0]), Number(x)];
    assert.ok(Math.abs(rate - lambda) < 0.05 * lambda, `${served} served at λ = ${x}`);
    assert.ok(Number(wait.split(' ± ')[0]) > 0, wait);
  }
  assert.match(await page.getByTestId('sweep-chart').getAttribute('aria-label'), /line: mean wait \(s\) and server: throughput \(a second\) \(right axis\) against/);
  await screenshot(page, 'sweep-two-metrics');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a second field across makes the sweep a phase map: load against retry attempts, each cell stable, recovered or collapsed', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.setInputFiles('[data-testid="import-file"]', join(root, 'scenarios', 'retry-storm.json'));
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent.includes('retry-storm.json'));
  await page.click('[data-node="clients"] .body');
  await page.getByTestId('param-arrivals-rate_per_s-sweep').click();
  await fill(page, { from: 2, to: 8, points: 3, reps: 2, until: 120 });
  // The second field's range appears once it is named; a wrong one is said.
  await page.getByTestId('sweep-across').fill('clients.nothing');
  await fill(page, { 'across-from': 1, 'across-to': 3, 'across-points': 2 });
  await page.getByTestId('sweep-metric').selectOption('clients.recovery');
  await page.getByTestId('sweep-start').click();
  assert.match(await page.getByTestId('sweep-error').textContent(), /^Across: no number clients\.nothing/);
  await page.getByTestId('sweep-across').fill('clients.retries.max_attempts');
  await page.getByTestId('sweep-start').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="sweep-status"]')?.textContent === 'Done', null, { timeout: 120000 });
  // A map, not a chart: 3 rates across, attempts 3 and 1 up the side.
  assert.equal(await page.locator('[data-testid="sweep-chart"]').count(), 0);
  const map = page.getByTestId('phase-map');
  assert.match(await map.locator('figcaption').textContent(), /clients: recovery .* over clients: Arrivals, Rate .* \(across\) and clients: .*Attempts.* \(up\)/i);
  const heads = await map.locator('thead th').allTextContents();
  assert.deepEqual(heads.slice(1), ['2', '5', '8']);
  assert.deepEqual(await map.locator('tbody th').allTextContents(), ['3', '1']);
  const cells = await map.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  // Light load without retries holds; heavy load with three attempts
  // collapses after the slowdown (the storm of lesson 19).
  assert.equal(cells[1][0], 'stable', JSON.stringify(cells));
  assert.equal(cells[0][2], 'collapsed', JSON.stringify(cells));
  assert.match(await map.locator('.legend').textContent(), /stable.*recovered.*collapsed.*mixed/);
  // The table lists both fields of each point.
  const head = await page.locator('[data-testid="sweep-table"] thead th').allTextContents();
  assert.match(head[1], /Attempts/i);
  assert.equal(await page.locator('[data-testid="sweep-table"] tbody tr').count(), 6);
  assert.deepEqual(await accessibilityProblems(page, '[data-testid="phase-map"]'), []);
  await screenshot(page, 'sweep-phase-map');
  assert.deepEqual(errors, []);
  await page.close();
});

test('Find the setting answers the fewest servers an M/M/c needs for its mean wait, marks what it tried, and Use loads it', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.setInputFiles('[data-testid="import-file"]', join(root, 'scenarios', 'queueing-theory.json'));
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent.includes('queueing-theory.json'));
  await page.click('[data-node="server"] .body');
  await page.getByTestId('param-workers-sweep').click();
  await fill(page, { from: 1, to: 6, points: 6, reps: 5, until: 300 });
  await page.getByTestId('sweep-metric').selectOption('line.mean_wait_s');
  // A search needs its target first, and says so.
  await page.getByTestId('tune-start').click();
  assert.equal(await page.getByTestId('sweep-error').textContent(), 'Target: give the level the metric must keep, such as 0.01');
  await page.getByTestId('sweep-start').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="sweep-status"]')?.textContent === 'Done', null, { timeout: 60000 });
  // λ = 8, μ = 10: Erlang C gives Wq = 19 ms at 2 servers, 2.6 ms at 3.
  await fill(page, { target: 0.01, reps: 20 });
  await page.getByTestId('tune-start').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="tune-status"]')?.textContent === 'Found', null, { timeout: 60000 });
  const answer = await page.getByTestId('tune-answer').textContent();
  assert.match(answer, /^The smallest server: Workers \(at once\) that keeps line: mean wait \(s\) at most 0\.01 with 95% confidence: 3 \(line: mean wait \(s\) [\d.e-]+ ± [\d.e-]+\)\. Tried \d+ values, \d+ replications\./);
  assert.match(await page.locator('[data-testid="tune-result"] .hint').textContent(), /\d+ replications, \d+ values decided/);
  await screenshot(page, 'tune-found');
  await page.getByTestId('tune-use').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="param-workers-number"]')?.value === '3');
  await page.keyboard.press('Control+z');
  await page.waitForFunction(() => document.querySelector('[data-testid="param-workers-number"]')?.value === '1');
  assert.deepEqual(await accessibilityProblems(page, '[data-testid="sweep-panel"]'), []);
  assert.deepEqual(errors, []);
  await page.close();
});

test("lesson 13's sweep step runs in the panel and is judged on the sweep", async () => {
  const { page, errors } = await open(env.browser, env.url, { picker: true });
  await page.getByTestId('lesson-13').click();
  await page.getByTestId('step-2-try').click();
  assert.equal(await page.getByTestId('step-2-verdict').getAttribute('data-state'), 'sweeping');
  await page.getByTestId('sweep-panel').waitFor();
  // The panel comes into view, and the focus stays on the lesson.
  await page.waitForFunction(() => {
    const r = document.querySelector('[data-testid="sweep-panel"]').getBoundingClientRect();
    return r.top < innerHeight && r.bottom > 0;
  });
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'step-2-try');
  assert.equal(await page.getByTestId('sweep-metric').inputValue(), 'line.mean_depth_messages');
  await page.waitForFunction(
    () => ['passed', 'failed'].includes(document.querySelector('[data-testid="step-2-verdict"]')?.dataset.state),
    null,
    { timeout: 90000 },
  );
  const verdict = page.getByTestId('step-2-verdict');
  assert.equal(await verdict.getAttribute('data-state'), 'passed', await verdict.textContent());
  assert.equal(await rows(page), 6);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a lesson's sweep cancelled, or its panel closed, leaves its step saying why, and the step can be tried again", async () => {
  const { page, errors } = await open(env.browser, env.url, { picker: true });
  // A sweep worker that never answers: the sweep runs until it is cancelled
  // or its panel closed, however fast the machine.
  await page.route('**/sweep-worker_loader.js', (route) =>
    route.fulfill({ contentType: 'text/javascript', body: '/* a sweep worker that never answers */' }));
  await page.getByTestId('lesson-13').click();
  const state = () => page.getByTestId('step-2-verdict').getAttribute('data-state');
  await page.getByTestId('step-2-try').click();
  assert.equal(await state(), 'sweeping');
  await page.getByTestId('sweep-cancel').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="step-2-verdict"]')?.dataset.state === 'abandoned');
  assert.match(await page.getByTestId('step-2-verdict').textContent(), /the sweep was cancelled/);
  // Again, and this time the panel is closed while it runs.
  await page.getByTestId('step-2-try').click();
  assert.equal(await state(), 'sweeping');
  await page.getByRole('button', { name: 'Close the sweep' }).click();
  await page.getByTestId('sweep-panel').waitFor({ state: 'detached' });
  assert.equal(await state(), 'abandoned');
  assert.match(await page.getByTestId('step-2-verdict').textContent(), /the Sweep panel was closed before it finished/);
  assert.equal(await page.getByTestId('step-2').getAttribute('data-tries'), '2');
  // A third try sweeps again.
  await page.getByTestId('step-2-try').click();
  assert.equal(await state(), 'sweeping');
  assert.equal(await page.getByTestId('step-2').getAttribute('data-tries'), '3');
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a phone the panel fits the screen, its chart is drawn at the screen\'s own pixels, and a tap loads a point', async () => {
  const page = await env.browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, hasTouch: true });
  const errors = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  await page.goto(env.url);
  await page.waitForSelector('[data-node]');
  await page.keyboard.press('Escape');
  // From the keyboard: "Sweep this" opens the panel with the focus on its
  // first field.
  await page.getByTestId('param-soft_limit-messages-sweep').focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('sweep-panel').waitFor();
  await page.waitForFunction(() => document.activeElement?.dataset.testid === 'sweep-from');
  await fill(page, { from: 20, to: 98, points: 5, reps: 3, until: 30 });
  await page.keyboard.press('Tab');
  await page.getByTestId('sweep-start').tap();
  await page.waitForFunction(() => document.querySelector('[data-testid="sweep-status"]')?.textContent === 'Done', null, { timeout: 60000 });
  const panel = await page.getByTestId('sweep-panel').boundingBox();
  assert.ok(panel.x >= 0 && panel.x + panel.width <= 390, `the panel spans ${panel.x} to ${panel.x + panel.width}`);
  // Every control of the panel is big enough for a finger.
  const small = await page.evaluate(() =>
    [...document.querySelectorAll('[data-testid="sweep-panel"] :is(button, input, select)')]
      .map((el) => [el.dataset.testid ?? el.getAttribute('aria-label'), el.getBoundingClientRect()])
      .filter(([, r]) => r.width < 44 || r.height < 44)
      .map(([name, r]) => `${name} ${Math.round(r.width)}x${Math.round(r.height)}`),
  );
  assert.deepEqual(small, []);
  // The chart's pixels are its CSS size times the screen's ratio: its
  // labels are drawn at their size, not shrunk from a desktop drawing.
  const chart = await page.getByTestId('sweep-chart').evaluate((c) => [c.width, c.height, c.clientWidth, c.clientHeight]);
  assert.deepEqual([chart[0], chart[1]], [chart[2] * 2, chart[3] * 2], `canvas ${chart}`);
  assert.ok(chart[2] < 390, `the chart is ${chart[2]} px wide`);
  // The table's "Use" by touch.
  await page.getByTestId('sweep-use-79').tap();
  await page.waitForFunction(() => document.querySelector('[data-testid="param-soft_limit-messages-number"]')?.value === '79');
  await page.getByTestId('sweep-panel').screenshot({ path: join(artifacts, 'sweep-phone.png') });
  assert.deepEqual(await accessibilityProblems(page, '[data-testid="sweep-panel"]'), []);
  assert.deepEqual(errors, []);
  await page.close();
});
