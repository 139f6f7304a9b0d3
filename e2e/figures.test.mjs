// The figures the page shows are the engine's own: paused at some instant,
// the page's clock, event count and counters equal what `sluice run`
// reports for the same scenario and seed run natively to that instant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { withBrowser, open, clockPasses, stands, root } from './harness.mjs';

const env = withBrowser();

/** The `sluice` command, built if it is not there yet. */
function sluice() {
  const path = join(process.env.CARGO_TARGET_DIR || join(root, 'target'), 'debug', 'sluice');
  if (!existsSync(path)) execFileSync('cargo', ['build', '-q', '-p', 'sluice-cli'], { cwd: root, stdio: 'inherit' });
  return path;
}

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
    // The panels refresh a moment after the pause: read them once they stand.
    let shown = await counters(page);
    for (let k = 0; k < 10; k++) {
      await page.waitForTimeout(200);
      const again = await counters(page);
      if (JSON.stringify(again) === JSON.stringify(shown)) break;
      shown = again;
    }
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
    drop: [await value('theory-measured-drop'), await value('theory-predicted-drop')],
  };
  // `sluice run --theory` prints each figure to a few decimals: the page's
  // must round to what it prints.
  const text = execFileSync(sluice(), ['run', join(root, 'scenarios', 'queueing-theory.json'), '--until', t, '--theory'], { encoding: 'utf8' });
  const line = text.split('\n').find((l) => /^\s+line\s+M\/M\/1/.test(l));
  assert.ok(line, text);
  const m = /waiting ([\d.]+) \| ([\d.]+), wait ([\d.]+) s \| ([\d.]+) s, drop probability ([\d.]+) \| ([\d.]+)/.exec(line);
  assert.ok(m, line);
  const printed = { waiting: [m[1], m[2]], wait: [m[3], m[4]], drop: [m[5], m[6]] };
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
