// Every step of every lesson pressed first, alone, as a link to it or a
// learner jumping ahead presses it: the steps it builds on are played
// first, and its verdict is the lesson's, never a failure for a step
// skipped. (A step that asks the learner has its change made for them.)

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { withBrowser, open, lessonFiles } from './harness.mjs';

const env = withBrowser();
const lessons = lessonFiles();

const state = (page, n) => page.evaluate((n) => document.querySelector(`[data-testid="step-${n}-verdict"]`)?.dataset.state, n);

test('every step of every lesson, pressed first, turns out as the lesson says', async () => {
  const { page, errors } = await open(env.browser, env.url);
  const broken = [];
  let judged = 0;
  for (const l of lessons) {
    for (let n = 1; n <= l.steps.length; n += 1) {
      await page.evaluate(([number, step]) => { location.hash = `#lesson=${number}&step=${step}`; }, [l.number, n]);
      // The page took the link: the lesson opened again from its start,
      // the step pressed, and the address names the lesson alone.
      await page.waitForFunction((number) => location.hash === `#lesson=${number}`, l.number, { timeout: 60_000 });
      await page.waitForFunction(([number, n]) => {
        const head = document.querySelector('[data-testid="lesson-panel"] h2')?.textContent ?? '';
        const tries = Number(document.querySelector(`[data-testid="step-${n}"]`)?.dataset.tries ?? 0);
        const s = document.querySelector(`[data-testid="step-${n}-verdict"]`)?.dataset.state;
        return head.startsWith(`Lesson ${number} `) && (tries > 0 || s === 'asking' || s === 'sweeping');
      }, [l.number, n], { timeout: 60_000 });
      if ((await state(page, n)) === 'asking') await page.getByTestId(`step-${n}-do-it`).click();
      // A watched step may reach its verdict on its own while Skip is being
      // pressed (its button then goes): that is no failure.
      if ((await state(page, n)) === 'watching') {
        await page.getByTestId(`step-${n}-skip`).click({ timeout: 5_000 }).catch(async (e) => {
          if ((await state(page, n)) === 'watching') throw e;
        });
      }
      await page.waitForFunction((n) => ['passed', 'failed', 'abandoned'].includes(document.querySelector(`[data-testid="step-${n}-verdict"]`)?.dataset.state), n, { timeout: 120_000 });
      const verdict = await state(page, n);
      judged += 1;
      // Judged once, from the link's press: the steps before it were
      // played first (each to its own verdict), none left untried.
      for (let j = 1; j < n; j += 1) {
        const before = await state(page, j);
        if (l.steps[j - 1].sweep === undefined && l.steps[n - 1].sweep === undefined && !l.steps[n - 1].compare && before !== 'passed') broken.push(`lesson ${l.number} step ${n}: step ${j} before it is ${before}`);
      }
      if (verdict !== 'passed') broken.push(`lesson ${l.number} step ${n}: ${verdict}: ${await page.getByTestId(`step-${n}-verdict`).textContent()}`);
      // Not left behind the next link: its notice, if any, names a fault.
      const notice = await page.evaluate(() => document.querySelector('[data-testid="notice"]')?.textContent ?? '');
      if (/could not/.test(notice)) broken.push(`lesson ${l.number} step ${n}: ${notice}`);
    }
  }
  assert.deepEqual(broken, []);
  assert.equal(judged, lessons.reduce((sum, l) => sum + l.steps.length, 0));
  assert.ok(judged > 60, `${judged} steps`);
  assert.deepEqual(errors, []);
  await page.close();
});
