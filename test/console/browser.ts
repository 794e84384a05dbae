import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium package; CHROMIUM_PATH overrides it. No browser is downloaded. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Launches the system's Chromium headless, or fails saying how to install it (never a silent skip). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`The console's browser tests need Chromium at ${CHROMIUM}: install it with \`sudo apt-get install -y chromium\` (or set CHROMIUM_PATH); .ci/run installs it.`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}
