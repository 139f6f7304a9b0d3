// Measures the Sweep panel's throughput in Chromium: the sweep of
// docs/performance.md ("Sweeps on one thread and two": the M/M/1 queue at
// arrival rates 2 to 9, 20 replications of 20,000 s each, 160 in all) run
// in the page's worker, three times, printing replications per second as
// the panel reports them. Not a test (the machines are shared and noisy):
// compare with `sluice sweep ... --jobs 1` run in the same sitting.
// Run after `make web`: `node e2e/measure-sweep.mjs`.
import { serve, launch } from './harness.mjs';

const { server, url } = await serve();
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(url);
  await page.waitForSelector('[data-node]');
  await page.getByTestId('lesson-13').click();
  await page.locator('[data-node="arrivals"]').click();
  await page.getByTestId('param-arrivals-rate_per_s-sweep').click();
  for (const [key, value] of Object.entries({ from: 2, to: 9, points: 8, reps: 20, until: 20000 })) {
    await page.getByTestId(`sweep-${key}`).fill(String(value));
  }
  for (let run = 1; run <= 3; run++) {
    await page.getByTestId('sweep-start').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="sweep-status"]')?.textContent === 'Done', null, { timeout: 300000 });
    const text = await page.locator('[data-testid="sweep-progress"] .hint').textContent();
    console.log(`run ${run}: ${text.replace(/^Done: /, '')}`);
  }
} finally {
  await browser.close();
  server.close();
}
