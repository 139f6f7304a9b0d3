// A/B comparison and the theory overlay in Chromium: a lesson's comparing
// step opens two live canvases on the same seed, overlays their charts and
// totals them in one table, and judges them; the playground's A/B button
// compares an edit with the scenario as it was; where A and B first part,
// and why; a queue the formulas know
// shows the theory's figures beside the measured ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withBrowser, open, screenshot, stands } from './harness.mjs';

const env = withBrowser();

const lessonsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'lessons');
const shared = JSON.parse(readFileSync(join(lessonsDir, '03-shared-window.json'), 'utf8'));

async function cell(page, id) {
  return Number(await page.getByTestId(id).textContent());
}

test('a comparing step runs A and B side by side, overlays their charts and totals them in one table', async () => {
  const { page, errors } = await open(env.browser, env.url, { picker: true });
  await page.getByTestId('lesson-3').click();
  await page.getByTestId('lesson-panel').waitFor();
  const k = shared.steps.findIndex((s) => s.compare) + 1;
  assert.ok(k > 0, 'lesson 3 has a comparing step');
  // Wait out the first step's watch (its button is disabled meanwhile).
  await page.selectOption('[data-testid="speed"]', 'max');
  await page.getByTestId(`step-${k}-try`).click();

  // Two canvases, labelled with the variants, B only watched.
  const view = page.getByTestId('ab-view');
  await view.waitFor();
  assert.match(await page.getByTestId('canvas-a').textContent(), new RegExp(shared.compare.a.label));
  assert.match(await page.getByTestId('canvas-b').textContent(), new RegExp(shared.compare.b.label));
  assert.equal(await page.locator('[data-testid="canvas-b"] .port.out').count(), 0, 'B has no ports to connect');
  assert.ok(await page.locator('[data-testid="canvas-a"] .port.out').count() > 0);

  // The verdict comes when both have run to the step's time.
  await page.waitForFunction(
    (k) => ['passed', 'failed'].includes(document.querySelector(`[data-testid="step-${k}-verdict"]`)?.dataset.state),
    k,
    { timeout: 90_000 },
  );
  const verdict = page.getByTestId(`step-${k}-verdict`);
  assert.equal(await verdict.getAttribute('data-state'), 'passed', await verdict.textContent());

  // Paused, the two columns are read at one instant: B has kept up with
  // A's clock, and the variants differ where the lesson says.
  await page.getByTestId('play').click();
  const table = page.getByTestId('ab-table');
  await table.waitFor();
  // Paused, B catches up with A and the table says so.
  await page.waitForFunction(() => !/catching up/.test(document.querySelector('[data-testid="ab-table"]')?.textContent ?? 'catching up'));
  assert.ok((await cell(page, 'ab-produced-a')) > 0 && (await cell(page, 'ab-produced-b')) > 0);
  const check = shared.steps[k - 1].check[0];
  await page.locator(`[data-testid="canvas-a"] [data-node="${check.node}"]`).click();
  const a = await cell(page, `ab-${check.node}-departed-a`);
  const b = await cell(page, `ab-${check.node}-departed-b`);
  assert.ok(b >= check.b_over_a_at_least * a, `B passed on ${b}, A ${a}`);

  // The chart overlays B dashed over A solid, one legend entry each.
  const legend = await page.getByTestId('chart-legend').textContent();
  assert.match(legend, /A: /);
  assert.match(legend, /B: /);
  const dashed = await page.locator('[data-testid="chart-legend"] .line-swatch').evaluateAll(
    (swatches) => swatches.map((s) => s.getAttribute('style')),
  );
  assert.ok(dashed.some((s) => /solid/.test(s)) && dashed.some((s) => /dashed/.test(s)), dashed.join(' | '));
  await screenshot(page, 'ab-lesson-3');

  // Where A and B part: the shared window, refusing what B's window per
  // destination let through to the fast receiver.
  await page.getByTestId('why-diverge').click();
  await page.getByTestId('why').waitFor();
  assert.match(await page.locator('[data-testid="why"] h3').textContent(), /A and B part at \d+\.\d{3} s, at window: in A window /);
  const lines = await page.$$eval('[data-testid="why-link"] .why-text', (els) => els.map((e) => e.textContent));
  assert.ok(lines.some((l) => /^A: window refused to_fast's messages .* in far_link/.test(l)), lines.join('\n'));
  await screenshot(page, 'ab-why');

  // Closing A/B leaves A, the editable one, alone on the canvas.
  await page.getByRole('button', { name: 'Close the A/B comparison' }).click();
  await view.waitFor({ state: 'detached' });
  assert.equal(await page.locator('svg.graph').count(), 1);
  assert.deepEqual(errors, []);
});

test('the A/B button compares an edit with the scenario as it was, both from time zero', async () => {
  // The M/M/1 lesson's scenario: nothing there pauses the producer.
  const { page, errors } = await open(env.browser, env.url, { picker: true });
  await page.getByTestId('lesson-13').click();
  await page.getByTestId('lesson-panel').getByRole('button', { name: 'Close the lesson' }).click();
  await page.getByTestId('ab-toggle').click();
  await page.getByTestId('ab-view').waitFor();
  assert.equal(await page.getByTestId('ab-toggle').getAttribute('aria-pressed'), 'true');
  // Halve the producer's rate in A: B keeps the old one.
  await page.locator('[data-testid="canvas-a"] [data-node="arrivals"]').click();
  const rate = page.getByTestId('param-arrivals-rate_per_s-number');
  const before = Number(await rate.inputValue());
  await rate.fill(String(before / 2));
  await rate.press('Enter');
  await page.selectOption('[data-testid="speed"]', '100');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="ab-produced-b"]')?.textContent) > 2000, null, { timeout: 30_000 });
  await page.getByTestId('play').click();
  await stands(page);
  const a = await cell(page, 'ab-produced-a');
  const b = await cell(page, 'ab-produced-b');
  assert.ok(a < 0.75 * b, `A made ${a}, B ${b}`);
  await page.getByTestId('ab-toggle').click();
  await page.getByTestId('ab-view').waitFor({ state: 'detached' });
  assert.deepEqual(errors, []);
});

test('a queue the formulas know shows the theory beside the measured figures', async () => {
  const { page, errors } = await open(env.browser, env.url, { picker: true });
  await page.getByTestId('lesson-13').click();
  const panel = page.getByTestId('theory-panel');
  await panel.waitFor();
  assert.match(await page.getByTestId('theory-model').textContent(), /M\/M\/1 · offered load ρ = 0\.80/);
  // The measured figure may be tiny in the first instants of the run, and
  // a figure under 0.01 is written with an exponent (5.7e-3).
  assert.match(await page.getByTestId('theory-tag-line').textContent(), /M\/M\/1: [\d.]+(e-\d+)? waiting · theory 3\.20/);
  // The node itself names all three figures, measured and predicted.
  assert.match(await page.locator('[data-node="line"]').getAttribute('aria-label'),
    /M\/M\/1: measured [\d.]+(e-\d+)? waiting, wait (–|[\d.]+(e-\d+)?) s, (–|[\d.]+(e-\d+)? %) dropped; theory 3\.20 waiting, wait 0\.40 s, 0 % dropped/);
  const predicted = Number(await page.getByTestId('theory-predicted-waiting').getAttribute('data-value'));
  assert.ok(Math.abs(predicted - 3.2) < 1e-9);
  // Let the first step's 3000 s run, then the measured mean is near.
  await page.selectOption('[data-testid="speed"]', 'max');
  await page.waitForFunction(() => document.querySelector('[data-testid="step-1-verdict"]')?.dataset.state === 'passed', null, { timeout: 90_000 });
  // It is the number waiting, Lq, not the number in the system, L = Lq + ρ
  // = 4: over a few thousand seconds it is nearer 3.2 than 4 (the run
  // goes on past the verdict, so the exact figure is not fixed).
  const measured = Number(await page.getByTestId('theory-measured-waiting').getAttribute('data-value'));
  assert.ok(measured > 0.6 * 3.2 && Math.abs(measured - 3.2) < Math.abs(measured - 4.0), `measured ${measured}`);
  const wait = Number(await page.getByTestId('theory-measured-wait').getAttribute('data-value'));
  assert.ok(Math.abs(wait - 0.4) < Math.abs(wait - 0.5), `measured wait ${wait}`);
  await screenshot(page, 'theory-mm1');

  // Step 3 (after step 2's sweep) bounds the queue: the model becomes
  // M/M/1/10 and predicts drops.
  await page.getByTestId('step-3-try').click();
  await page.waitForFunction(() => /M\/M\/1\/10/.test(document.querySelector('[data-testid="theory-model"]')?.textContent));
  const drop = Number(await page.getByTestId('theory-predicted-drop').getAttribute('data-value'));
  assert.ok(Math.abs(drop - 0.0235) < 0.0005, `P(full) ${drop}`);

  // A queue the formulas do not describe says why not.
  await page.getByTestId('lesson-panel').getByTestId('all-lessons').click();
  await page.getByTestId('lesson-1').click();
  await page.locator('[data-node="sender"]').click();
  assert.match(await page.getByTestId('theory-none').textContent(), /No closed form for sender: /);
  assert.equal(await page.locator('.theory-tag').count(), 0);
  assert.deepEqual(errors, []);
});
