// The figures the page shows are the engine's own: paused at some instant,
// the page's clock, event count and counters, the Theory panel and the A/B
// table equal what `sluice run` reports for the same scenario and seed run
// natively to that instant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withBrowser, open, clockPasses, stands, root, sluice } from './harness.mjs';

const env = withBrowser();

/** What the Counters panel shows: the totals and the drops by node and reason. */
async function counters(page) {
  const totals = {};
  for (const [name, key] of [['produced', 'produced'], ['delivered', 'delivered'], ['dropped', 'dropped'], ['in-system', 'in_system']]) {
    totals[key] = Number((await page.textContent(`[data-testid="total-${name}"]`)).replace(/\D/g, ''));
  }
  const drops = await page.$$eval('tr[data-testid^="drops-"]', (rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent.trim())).map(([node, reason, count]) => `${node} ${reason} ${count}`));
  return { totals, drops: drops.sort() };
}

for (const file of ['slow-client.json', 'every-block.json']) {
  test(`paused, the page's clock and counters are the engine's own run of ${file} and its seed to that instant`, async () => {
    const { page, errors } = await open(env.browser, env.url);
    // The page opens on the built-in scenario (slow-client.json); another
    // is imported as a person would.
    if (file !== 'slow-client.json') {
      await page.setInputFiles('[data-testid="import-file"]', join(root, 'scenarios', file));
      await page.waitForFunction((f) => document.querySelector('[data-testid="status"]')?.textContent.includes(f), file);
      if ((await page.getAttribute('[data-testid="play"]', 'aria-pressed')) !== 'true') await page.click('[data-testid="play"]');
    }
    await page.selectOption('[data-testid="speed"]', '10');
    await clockPasses(page, 12, 30000);
    await page.click('[data-testid="play"]');
    const { events } = await stands(page);
    const t = await page.getAttribute('[data-testid="clock"]', 'data-time-s');
    // The panels refresh a moment after the pause: read them once they
    // show the clock's instant.
    await page.waitForFunction((at) => document.querySelector('section.counters')?.dataset.timeS === at, t);
    const shown = await counters(page);
    const report = JSON.parse(execFileSync(sluice(), ['run', join(root, 'scenarios', file), '--until', t, '--format', 'json'], { encoding: 'utf8' }));
    assert.equal(report.sim_time_s, Number(t));
    assert.equal(events, report.events, `events at ${t} s`);
    assert.deepEqual(shown.totals, report.totals, `totals at ${t} s`);
    const drops = Object.entries(report.nodes)
      .flatMap(([node, r]) => Object.entries(r.dropped).map(([reason, count]) => `${node} ${reason} ${count}`))
      .sort();
    if (file === 'every-block.json') assert.ok(drops.length > 0, 'something was dropped by then');
    assert.deepEqual(shown.drops, drops, `drops at ${t} s`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test("paused, the Theory panel's measured and predicted figures are the engine's own for the same run", async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.setInputFiles('[data-testid="import-file"]', join(root, 'scenarios', 'queueing-theory.json'));
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent.includes('queueing-theory.json'));
  if ((await page.getAttribute('[data-testid="play"]', 'aria-pressed')) !== 'true') await page.click('[data-testid="play"]');
  await page.selectOption('[data-testid="speed"]', '100');
  await clockPasses(page, 60, 30000);
  await page.click('[data-testid="play"]');
  await stands(page);
  await page.click('[data-node="line"] .body');
  await page.getByTestId('theory-table').waitFor();
  const t = await page.getAttribute('[data-testid="clock"]', 'data-time-s');
  const value = async (id) => Number(await page.getAttribute(`[data-testid="${id}"]`, 'data-value'));
  const shown = {
    waiting: [await value('theory-measured-waiting'), await value('theory-predicted-waiting')],
    wait: [await value('theory-measured-wait'), await value('theory-predicted-wait')],
    p99: [await value('theory-measured-p99-wait'), await value('theory-predicted-p99-wait')],
    drop: [await value('theory-measured-drop'), await value('theory-predicted-drop')],
  };
  // `sluice run --theory` prints each figure to a few decimals: the page's
  // must round to what it prints.
  const text = execFileSync(sluice(), ['run', join(root, 'scenarios', 'queueing-theory.json'), '--until', t, '--theory'], { encoding: 'utf8' });
  const line = text.split('\n').find((l) => /^\s+line\s+M\/M\/1/.test(l));
  assert.ok(line, text);
  const m = /waiting ([\d.]+) \| ([\d.]+), wait ([\d.]+) s \| ([\d.]+) s, 99% wait at most ([\d.]+) s \| ([\d.]+) s, drop probability ([\d.]+) \| ([\d.]+)/.exec(line);
  assert.ok(m, line);
  const printed = { waiting: [m[1], m[2]], wait: [m[3], m[4]], p99: [m[5], m[6]], drop: [m[7], m[8]] };
  for (const [figure, pair] of Object.entries(printed)) {
    pair.forEach((p, k) => {
      const decimals = (p.split('.')[1] ?? '').length;
      assert.ok(Math.abs(shown[figure][k] - Number(p)) <= 0.5 * 10 ** -decimals + 1e-12,
        `${figure} ${k ? 'predicted' : 'measured'} at ${t} s: the page ${shown[figure][k]}, sluice ${p}`);
    });
  }
  assert.ok(shown.waiting[0] > 0, 'something waited');
  assert.deepEqual(errors, []);
  await page.close();
});

test("paused, the A/B table's figures are the engine's own runs of the edited scenario and of the scenario as it was", async () => {
  const { page, errors } = await open(env.browser, env.url);
  const file = join(root, 'scenarios', 'queueing-theory.json');
  await page.setInputFiles('[data-testid="import-file"]', file);
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent.includes('queueing-theory.json'));
  await page.getByTestId('ab-toggle').click();
  await page.getByTestId('ab-view').waitFor();
  // A gets a second worker: both start again from time zero.
  await page.locator('[data-testid="canvas-a"] [data-node="server"]').click();
  await page.fill('[data-testid="param-workers-number"]', '2');
  if ((await page.getAttribute('[data-testid="play"]', 'aria-pressed')) !== 'true') await page.click('[data-testid="play"]');
  await page.selectOption('[data-testid="speed"]', '10');
  await clockPasses(page, 12, 30000);
  await page.click('[data-testid="play"]');
  await stands(page);
  const t = await page.getAttribute('[data-testid="clock"]', 'data-time-s');
  const cell = async (id) => Number((await page.textContent(`[data-testid="${id}"]`)).trim());
  // The table refreshes a moment after the pause: read it once A and B
  // both show the clock's instant.
  await page.waitForFunction((at) => {
    const table = document.querySelector('[data-testid="ab-table"]');
    return table?.dataset.timeS === at && table?.dataset.bTimeS === at;
  }, t);
  const shown = {};
  for (const key of ['produced', 'delivered', 'dropped', 'in-system', 'server-departed', 'server-dropped']) {
    shown[key] = [await cell(`ab-${key}-a`), await cell(`ab-${key}-b`)];
  }
  // The engine's runs: A as edited, B as the file has it; the same seed.
  const edited = JSON.parse(readFileSync(file, 'utf8'));
  edited.nodes.find((n) => n.id === 'server').workers = 2;
  const aFile = join(mkdtempSync(join(tmpdir(), 'sluice-ab-')), 'a.json');
  writeFileSync(aFile, JSON.stringify(edited));
  const run = (f) => JSON.parse(execFileSync(sluice(), ['run', f, '--until', t, '--format', 'json'], { encoding: 'utf8' }));
  const [a, b] = [run(aFile), run(file)];
  const expected = {
    produced: [a.totals.produced, b.totals.produced],
    delivered: [a.totals.delivered, b.totals.delivered],
    dropped: [a.totals.dropped, b.totals.dropped],
    'in-system': [a.totals.in_system, b.totals.in_system],
    'server-departed': [a.nodes.server.departed, b.nodes.server.departed],
    'server-dropped': [a.nodes.server.dropped_total, b.nodes.server.dropped_total],
  };
  assert.ok(expected.produced[0] > 50 && expected.delivered[1] > 50, `something ran by ${t} s`);
  assert.deepEqual(shown, expected, `the A/B table at ${t} s`);
  assert.deepEqual(errors, []);
  await page.close();
});
