// Why?: the cause chain of what happened at a block, in the page as the
// command line prints it. Lesson 1's slow reader, opened at 9.9 s: the
// sender's last thinned frame traced to the socket's full buffer and the
// client's one busy worker, each line the engine's own (`sluice explain`);
// a line pressed shows the run at its instant with its block selected; a
// drop in the event log asked about; no accessibility problem; a phone.
// A band of a state strip pressed explains how its state began there, and
// the keyboard walks a strip band by band. Lessons' steps that explain
// open their chain at their verdict, the one `sluice lesson` prints, and
// bring it up to be read at 1280 × 720.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withBrowser, accessibilityProblems, screenshot, root, sluice, open, stands, openAt as openAtInstant } from './harness.mjs';

const env = withBrowser();

/** Lesson 1's slow reader: the client's one worker takes 10 ms a message. */
function slowReader() {
  const scenario = JSON.parse(readFileSync(join(root, 'scenarios', 'slow-client.json'), 'utf8'));
  const client = scenario.nodes.find((n) => n.id === 'client');
  client.workers = 1;
  client.service_time = { dist: 'fixed', value: 0.01 };
  const file = join(mkdtempSync(join(tmpdir(), 'sluice-why-')), 'slow-reader.json');
  writeFileSync(file, JSON.stringify(scenario));
  return file;
}

const file = slowReader();

async function openAt(t, viewport) {
  const opened = await openAtInstant(env, file, t, viewport);
  await opened.page.waitForFunction((at) => document.querySelector('[data-testid="clock"]')?.dataset.timeS === at, String(t));
  return opened;
}

/** The lines of the Why panel. */
async function lines(page) {
  await page.waitForSelector('[data-testid="why"]');
  return page.$$eval('[data-testid="why-link"] .why-text', (els) => els.map((e) => e.textContent));
}

test('Why? at the selected block shows the chain sluice explain prints, and a line pressed shows its instant', async () => {
  const { page, errors } = await openAt(9.9, { width: 1440, height: 900 });
  await page.click('[data-node="sender"] .body');
  await page.getByTestId('why-selected').click();
  const shown = await lines(page);
  const engine = JSON.parse(execFileSync(sluice(), ['explain', file, '--at', '9.9', '--node', 'sender', '--format', 'json'], { encoding: 'utf8' }));
  const links = engine.nodes.sender.links;
  assert.deepEqual(shown, links.map((l) => l.text), 'the page shows the engine\'s chain');
  assert.match(shown[0], /sender thinned a droppable video message/);
  assert.match(shown[2], /socket refused sender's messages/);
  assert.match(shown[3], /client refused socket's messages .* all its workers were busy/);
  await screenshot(page, 'why-desktop');
  assert.deepEqual(await accessibilityProblems(page, '[data-testid="why"]'), []);

  // The client's line: the run at its instant, the client selected.
  await page.locator('[data-testid="why-link"]').nth(3).click();
  const at = links[3].at.toFixed(2);
  await page.waitForFunction((s) => document.querySelector('[data-testid="time-line-at"]')?.textContent.includes(`${s} s of`), at);
  await page.waitForSelector('[data-node="client"].selected');
  assert.deepEqual(await lines(page), shown, 'the chain stays while its lines are visited');

  // A drop in the log asked about: the last thinned frame's chain.
  await page.getByTestId('time-line-live').click();
  await page.getByTestId('why-ask').first().waitFor();
  const drop = page.locator('li.entry.drop [data-testid="why-ask"]').first();
  await drop.click();
  const asked = await lines(page);
  assert.match(asked[0], /thinned|dropped|refused|overflowed/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('Why? on a phone: the panel and its lines are a finger wide', async () => {
  const { page, errors } = await openAt(9.9, { width: 390, height: 844 });
  await page.click('[data-node="sender"] .body');
  await page.getByTestId('why-selected').scrollIntoViewIfNeeded();
  await page.getByTestId('why-selected').click();
  const shown = await lines(page);
  assert.ok(shown.length >= 4, `${shown.length} lines`);
  for (const box of await page.locator('[data-testid="why-link"]').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height))) {
    assert.ok(box >= 44, `a line ${box} px high`);
  }
  await page.getByTestId('why').scrollIntoViewIfNeeded();
  await screenshot(page, 'why-phone');
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a phone, a band of a state strip pressed brings its chain, drawn above the chart, into view', async () => {
  const { page, errors } = await openAt(9.9, { width: 390, height: 844 });
  await page.click('[data-node="sender"] .body');
  const band = page.locator('[data-testid="strip-sender"] rect.band[data-state="Overloaded"]').last();
  await band.scrollIntoViewIfNeeded();
  await band.click();
  await lines(page);
  await page.waitForTimeout(400);
  const why = await page.evaluate(() => {
    const r = document.querySelector('[data-testid="why"]').getBoundingClientRect();
    return { height: r.height, shown: Math.min(r.bottom, innerHeight) - Math.max(r.top, 0), top: r.top };
  });
  assert.ok(why.shown >= Math.min(why.height, 160), `${why.shown} px of the chain's ${why.height} show (its top at ${why.top})`);
  await screenshot(page, 'why-strip-phone');
  assert.deepEqual(errors, []);
  await page.close();
});

/** The chain `sluice lesson N` prints under step `step`'s verdict. */
function lessonChain(n, step) {
  const out = execFileSync(sluice(), ['lesson', String(n)], { encoding: 'utf8' });
  const part = out.split(/\nstep /).find((p) => p.startsWith(`${step},`));
  return part.split('\n').filter((l) => /^ {7}\d+\.\d{3} s /.test(l)).map((l) => l.replace(/^ {7}\d+\.\d{3} s /, ''));
}

test('a lesson step that explains opens its chain at its verdict: lesson 3, the fast receiver held back by the shared window', async () => {
  const { page, errors } = await open(env.browser, `${env.url}#lesson=3`, { width: 1440, height: 900 });
  await page.getByTestId('step-1-skip').click();
  await page.waitForSelector('[data-testid="step-1-verdict"][data-state="passed"]');
  const shown = await lines(page);
  assert.deepEqual(shown, lessonChain(3, 1), 'the chain sluice lesson prints');
  assert.match(shown[0], /window refused to_fast's messages .*10 of them in far_link/);
  assert.match(await page.getByTestId('step-1-verdict').textContent(), /its chain names window refusing to_fast, window's messages in flight mostly at far_link/);
  await stands(page);
  await screenshot(page, 'why-lesson-desktop');
  assert.deepEqual(await accessibilityProblems(page, '[data-testid="lesson-panel"]'), []);
  // Closed, and shown again from the verdict.
  await page.getByRole('button', { name: 'Close the explanation' }).click();
  await page.waitForSelector('[data-testid="why"]', { state: 'detached' });
  await page.getByTestId('step-1-why').click();
  assert.deepEqual(await lines(page), shown);
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a phone, lesson 6\'s first verdict brings into view why the slow sender was held back', async () => {
  const { page, errors } = await open(env.browser, `${env.url}#lesson=6`, { width: 390, height: 844 });
  await page.getByTestId('step-1-skip').scrollIntoViewIfNeeded();
  await page.getByTestId('step-1-skip').click();
  const shown = await lines(page);
  assert.deepEqual(shown, lessonChain(6, 1));
  assert.match(shown[0], /inbound refused window_slow's messages .* full .* from fast_sender/);
  await page.waitForFunction(() => {
    const r = document.querySelector('[data-testid="why"]').getBoundingClientRect();
    return r.top < innerHeight && r.bottom > 0;
  });
  await screenshot(page, 'why-lesson-phone');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a band of a state strip pressed explains how its state began there', async () => {
  const { page, errors } = await openAt(9.9, { width: 1440, height: 900 });
  await page.click('[data-node="sender"] .body');
  const bands = page.locator('[data-testid="strip-sender"] rect.band[data-state="Overloaded"]');
  await bands.first().waitFor();
  // The widest Overloaded band, and the span its tooltip gives.
  const widths = await bands.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
  const widest = bands.nth(widths.indexOf(Math.max(...widths)));
  const [from, to] = (await widest.locator('title').textContent()).match(/[\d.]+/g).map(Number);
  await widest.click();
  const shown = await lines(page);
  assert.match(shown[0], /^sender went from \w+ to Overloaded at ([\d.]+) s: a write would block, as socket refused what it sent/);
  const at = Number(shown[0].match(/Overloaded at ([\d.]+) s/)[1]);
  // Entered within the band, or, held from before it, the entry it began in.
  assert.ok(at <= to + 0.001, `entered at ${at}, band ${from} to ${to}`);
  assert.match(shown[1], /socket refused sender's messages/);
  await stands(page);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the keyboard walks a state strip band by band and asks why with Enter', async () => {
  const { page, errors } = await openAt(9.9, { width: 1440, height: 900 });
  await page.click('[data-node="sender"] .body');
  const strip = page.locator('[data-testid="strip-sender"]');
  await strip.locator('rect.band').first().waitFor();
  // One tab stop a strip: its latest band.
  const stops = await strip.locator('rect.band').evaluateAll((els) => els.map((e) => e.getAttribute('tabindex')));
  assert.ok(stops.length > 2, `${stops.length} bands`);
  assert.deepEqual(stops.map((t, i) => [i, t]).filter(([, t]) => t === '0'), [[stops.length - 1, '0']]);
  // The band the focus is on: its place along the strip and its state.
  const focused = () =>
    page.evaluate(() => {
      const e = document.activeElement;
      return e?.matches('rect.band') ? [[...e.parentNode.querySelectorAll('rect.band')].indexOf(e), e.dataset.state] : null;
    });
  await strip.locator('rect.band[tabindex="0"]').focus();
  await page.keyboard.press('Home');
  assert.deepEqual((await focused())[0], 0);
  await page.keyboard.press('End');
  assert.deepEqual((await focused())[0], stops.length - 1);
  await page.keyboard.press('Home');
  while ((await focused())[1] !== 'Overloaded') {
    const [at] = await focused();
    await page.keyboard.press('ArrowRight');
    assert.equal((await focused())[0], at + 1, 'ArrowRight moves one band on');
  }
  const [at] = await focused();
  await page.keyboard.press('ArrowLeft');
  assert.equal((await focused())[0], at - 1, 'ArrowLeft moves one band back');
  await page.keyboard.press('ArrowRight');
  // The strip's one tab stop moved with the focus: Tab leaves the strip,
  // Shift+Tab comes back to the band it left.
  const zero = await strip.locator('rect.band').evaluateAll((els) => els.flatMap((e, i) => (e.getAttribute('tabindex') === '0' ? [i] : [])));
  assert.deepEqual(zero, [at], 'the tab stop is the band the focus is on');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), null, 'Tab leaves the strip');
  await page.keyboard.press('Shift+Tab');
  assert.deepEqual(await focused(), [at, 'Overloaded'], 'Shift+Tab comes back to it');
  await page.keyboard.press('Enter');
  const shown = await lines(page);
  assert.match(shown[0], /^sender went from \w+ to Overloaded at [\d.]+ s: a write would block, as socket refused what it sent/);
  assert.deepEqual(await accessibilityProblems(page, '[data-testid="strip-sender"]'), []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('at 1280 × 720 a lesson step pressed alone brings its chain up to be read, its canvas and verdict still in view', async () => {
  const { page, errors } = await open(env.browser, `${env.url}#lesson=1`, { width: 1280, height: 720 });
  // Step 2 builds on step 1: both are played to their verdicts.
  await page.getByTestId('step-2-try').click();
  // Each step watched is skipped ahead to its verdict.
  const judged = () => page.evaluate(() => ['passed', 'failed'].includes(document.querySelector('[data-testid="step-2-verdict"]')?.dataset.state));
  for (const started = Date.now(); !(await judged()); ) {
    assert.ok(Date.now() - started < 60_000, 'step 2 judged within a minute');
    const skip = page.locator('[data-testid$="-skip"]');
    if (await skip.count()) await skip.first().click().catch(() => {});
    await page.waitForTimeout(100);
  }
  assert.match(await page.getByTestId('step-2-verdict').textContent(), /Why the first drop at sender .* its chain names sender Overloaded/);
  await page.waitForSelector('[data-testid="why"]');
  await page.waitForTimeout(400);
  const box = (selector) =>
    page.evaluate((selector) => {
      const r = document.querySelector(selector).getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, height: r.height, shown: Math.min(r.bottom, innerHeight) - Math.max(r.top, 0) };
    }, selector);
  const why = await box('[data-testid="why"]');
  assert.ok(why.shown >= Math.min(why.height, 160), `${why.shown} px of the chain's ${why.height} show`);
  assert.ok((await box('svg.graph')).top >= 0, 'the canvas\'s top is in view');
  const verdict = await box('[data-testid="step-2-verdict"]');
  assert.ok(verdict.top >= 0 && verdict.bottom <= 720, `the verdict is in view (${verdict.top} to ${verdict.bottom})`);
  await screenshot(page, 'why-lesson-1280x720');
  assert.deepEqual(errors, []);
  await page.close();
});
