// Writes docs/screenshot.png: the first lesson after a few simulated
// seconds, as the README shows it. Run with `make screenshot`.
import { join } from 'node:path';
import { serve, launch, open } from './harness.mjs';

const out = join(process.cwd(), 'docs', 'screenshot.png');
const { server, url } = await serve();
const browser = await launch();
try {
  // The first lesson, opened from the picker a first visit shows, a few
  // simulated seconds in.
  const { page, errors } = await open(browser, url, { picker: true });
  await page.getByTestId('lesson-1').click();
  await page.getByTestId('lesson-panel').waitFor();
  await page.selectOption('[data-testid="speed"]', '5');
  await page.waitForTimeout(4000);
  await page.click('[data-testid="play"]');
  await page.screenshot({ path: out });
  if (errors.length) throw new Error(`console errors: ${errors.join('; ')}`);
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  server.close();
}
