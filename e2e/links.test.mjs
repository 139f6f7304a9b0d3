// Links a teacher sends: to a lesson at a step, to a scenario with its
// story, and to the page hosted under a course site's sub-path.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { serve, launch, open, clockMoves, screenshot } from './harness.mjs';

const env = { browser: null, url: null, server: null, sub: null, subServer: null };
before(async () => {
  ({ server: env.server, url: env.url } = await serve());
  ({ server: env.subServer, url: env.sub } = await serve({ under: '/course/sluice/' }));
  env.browser = await launch();
});
after(async () => {
  await env.browser?.close();
  env.server?.close();
  env.subServer?.close();
});

/** A page of its own (a fresh browser's storage), opened at `url`. */
async function fresh(url) {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  const missing = [];
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  page.on('pageerror', (err) => errors.push(String(err)));
  page.on('response', (r) => r.status() >= 400 && missing.push(`${r.status()} ${r.url()}`));
  await page.goto(url);
  await page.waitForSelector('[data-node]');
  return { page, context, errors, missing };
}

const stepTries = (page, n) => page.getByTestId(`step-${n}`).getAttribute('data-tries').then(Number);

test('a lesson link opens the lesson at its step, the address keeps the lesson, and a reload opens it again', async () => {
  const { page, context, errors } = await fresh(`${env.url}#lesson=3&step=2`);
  const panel = page.getByTestId('lesson-panel');
  await panel.waitFor();
  assert.match(await panel.locator('h2').textContent(), /Lesson 3/);
  assert.equal(await page.getByTestId('lesson-picker').count(), 0, 'a link is not a first visit: no picker');
  assert.equal(await stepTries(page, 2), 1, 'step 2 was pressed by the link');
  assert.match(await page.getByTestId('step-2-verdict').getAttribute('data-state'), /watching|passed|failed/);
  // The address now names the lesson: reloading opens it again, at its start.
  await page.waitForFunction(() => location.hash === '#lesson=3');
  // (Saved with the lesson's mark, or the reload would test nothing.)
  await page.waitForFunction(() => localStorage.getItem('sluice.scenario.v1.lesson') === '#lesson=3');
  await page.reload();
  await panel.waitFor();
  assert.match(await panel.locator('h2').textContent(), /Lesson 3/);
  // The scenario saved with it (step 2's change made) is the lesson's own,
  // not work to restore.
  assert.equal(await page.getByTestId('earlier').count(), 0, 'nothing kept aside');
  await screenshot(page, 'lesson-link');
  // Closing the lesson takes its link away.
  await page.getByRole('button', { name: 'Close the lesson' }).click();
  await page.waitForFunction(() => location.hash === '');
  // A lesson link pasted into the open page opens that lesson.
  await page.evaluate(() => { location.hash = '#lesson=5'; });
  await page.waitForFunction(() => /Lesson 5/.test(document.querySelector('[data-testid="lesson-panel"] h2')?.textContent ?? ''));
  assert.deepEqual(errors, []);
  await context.close();
});

test('work of one\'s own that only shares a lesson\'s scenario\'s name is kept aside when a lesson link opens', async () => {
  const { page, context, errors } = await fresh(env.url);
  // A first visit: the picker, closed.
  await page.getByTestId('picker-close').click();
  await page.getByTestId('lesson-picker').waitFor({ state: 'detached' });
  // The scenario the page opens with is lesson 1's; changed, it is work.
  // (The seed is typed again should the page have drawn its field anew
  // while the picker went away.)
  const saved = () => page.waitForFunction(() => JSON.parse(localStorage.getItem('sluice.scenario.v1') ?? '{}').seed === 7, null, { timeout: 3000 }).then(() => true, () => false);
  let tries = 0;
  do {
    await page.getByTestId('seed').fill('7');
    await page.getByTestId('seed').press('Enter');
    tries += 1;
  } while (!(await saved()) && tries < 3);
  assert.ok(await saved(), 'the new seed is saved');
  await page.evaluate(() => { location.hash = '#lesson=3'; });
  await page.getByTestId('lesson-panel').waitFor();
  await page.getByTestId('restore-earlier').waitFor();
  assert.equal(JSON.parse(await page.evaluate(() => localStorage.getItem('sluice.scenario.v1.earlier'))).seed, 7);
  // Restored, the work is not the lesson's: the lesson closes, and its link
  // opened again keeps the work aside once more.
  await page.getByTestId('restore-earlier').click();
  await page.getByTestId('lesson-panel').waitFor({ state: 'detached' });
  assert.match(await page.getByTestId('status').textContent(), /earlier work is back.*The lesson is closed/);
  await page.waitForFunction(() => location.hash === '');
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('sluice.scenario.v1') ?? '{}').seed === 7);
  assert.equal(await page.evaluate(() => localStorage.getItem('sluice.scenario.v1.lesson')), null, 'saved without the lesson\'s mark');
  await page.reload();
  await page.waitForSelector('[data-node]');
  assert.equal(await page.getByTestId('seed').inputValue(), '7', 'a reload opens the work');
  // (A page loaded afresh: not the same page's fragment changed.)
  await page.goto('about:blank');
  await page.goto(`${env.url}#lesson=3`);
  await page.getByTestId('lesson-panel').waitFor();
  await page.getByTestId('restore-earlier').waitFor();
  assert.equal(JSON.parse(await page.evaluate(() => localStorage.getItem('sluice.scenario.v1.earlier'))).seed, 7);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a lesson link that names no lesson or step, or does not read, says so and opens the playground', async () => {
  for (const [hash, said] of [
    ['#lesson=99', /The lesson link could not be opened: there is no lesson 99; lessons are numbered 1 to \d+/],
    ['#lesson=3&step=9', /lesson 3 has 3 step\(s\); there is no step 9/],
    ['#lesson=three', /it should be #lesson=N or #lesson=N&step=K/],
  ]) {
    const { page, context, errors } = await fresh(`${env.url}${hash}`);
    await page.getByTestId('notice').waitFor();
    assert.match(await page.getByTestId('notice').textContent(), said, hash);
    assert.equal(await page.getByTestId('lesson-panel').count(), 0, hash);
    assert.equal(await page.evaluate(() => location.hash), '', `${hash}: the link is taken away`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('a scenario link shows its name and description for the student to read', async () => {
  const { page, errors } = await open(env.browser, env.url);
  // Name and describe the scenario (nothing selected: the inspector shows them).
  await page.keyboard.press('Escape');
  await page.locator('svg.graph').click({ position: { x: 8, y: 8 } });
  await page.getByTestId('scenario-name').fill('Homework 2: a slow consumer');
  await page.getByTestId('scenario-name').press('Enter');
  await page.getByTestId('scenario-description').fill('Lower the queue\'s soft limit until the sender pauses.\nWhat happens to the drops?');
  await page.getByTestId('scenario-description').blur();
  await page.click('[data-testid="share"]');
  const link = await page.inputValue('[data-testid="share-link"]');
  assert.match(link, /#s=2\./);
  const student = await fresh(link);
  const banner = student.page.getByTestId('banner');
  await banner.waitFor();
  assert.equal(await student.page.getByTestId('banner-name').textContent(), 'Homework 2: a slow consumer');
  assert.equal(await student.page.getByTestId('banner-description').textContent(),
    'Lower the queue\'s soft limit until the sender pauses.\nWhat happens to the drops?');
  await screenshot(student.page, 'scenario-link-banner');
  await student.page.getByRole('button', { name: 'Close the scenario\'s description' }).click();
  await banner.waitFor({ state: 'detached' });
  assert.deepEqual(errors, []);
  assert.deepEqual(student.errors, []);
  await student.context.close();
  await page.close();
});

test('the page served under a sub-path loads every asset from there, runs, and starts its workers', async () => {
  const { page, context, errors, missing } = await fresh(env.sub);
  assert.ok(env.sub.endsWith('/course/sluice/'));
  await page.getByTestId('picker-close').click();
  await clockMoves(page);
  // The workers' scripts are asked for from the page's own folder.
  const workers = await page.evaluate(async () => (await Promise.all(
    ['sweep-worker_loader.js', 'sweep-worker.js', 'sweep-worker_bg.wasm'].map((f) => fetch(f).then((r) => `${r.status} ${new URL(r.url).pathname}`)))));
  assert.deepEqual(workers, ['200 /course/sluice/sweep-worker_loader.js', '200 /course/sluice/sweep-worker.js', '200 /course/sluice/sweep-worker_bg.wasm']);
  // A lesson link works there too.
  await page.goto(`${env.sub}#lesson=1`);
  await page.getByTestId('lesson-panel').waitFor();
  assert.deepEqual(missing, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('until its WebAssembly has started, the page says it is loading', async () => {
  const context = await env.browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route(/sluice-web-[0-9a-f]+_bg\.wasm$/, async (route) => { await held; await route.continue(); });
  await page.goto(env.url);
  const loading = page.getByTestId('loading');
  await loading.waitFor();
  assert.match(await loading.textContent(), /Loading the flow-control playground/);
  await screenshot(page, 'loading');
  release();
  await page.waitForSelector('[data-node]');
  assert.equal(await loading.count(), 0, 'the page takes its place');
  await context.close();
});

test('a step pressed before the steps it builds on plays them first, and says so', async () => {
  const { page, context, errors } = await fresh(`${env.url}#lesson=1&step=5`);
  await page.getByTestId('lesson-panel').waitFor();
  assert.match(await page.getByTestId('status').textContent(), /Step 5 builds on steps 1 to 4: played first, to their verdicts\./);
  for (const n of [1, 2, 3, 4]) {
    assert.equal(await page.getByTestId(`step-${n}-verdict`).getAttribute('data-state'), 'passed', `step ${n}`);
  }
  assert.equal(await page.getByTestId('step-5-verdict').getAttribute('data-state'), 'watching');
  await page.selectOption('[data-testid="speed"]', 'max');
  await page.waitForFunction(() => document.querySelector('[data-testid="step-5-verdict"]')?.dataset.state === 'passed', null, { timeout: 60_000 });
  assert.deepEqual(errors, []);
  await context.close();
});
