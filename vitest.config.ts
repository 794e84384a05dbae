import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The long tests, selected by this file list (the files stay where test/ mirrors src/): processes
 * killed mid-load or restarted, several server or CLI processes started, cursor followers under
 * writes, the hostile sweep, and any other file that took over ~15 s alone. They form the `long`
 * project, every other file `quick`. `npm test` runs both (CI runs it): first `quick`, two files at
 * a time (on this 2-core machine 195 s on one worker, 128 s on two: most quick tests wait on I/O),
 * then `long`, one file after another in one forked process (they time real processes, so none
 * runs beside another); `npm run test:quick` runs `quick` alone.
 */
const LONG = [
  'test/jobs/crash-mid-job.test.ts',
  'test/jobs/two-processes.test.ts',
  'test/store/cursor-follower.test.ts',
  'test/server.test.ts',
  'test/jobs/webhook-restart.test.ts',
  'test/jobs/card-simulation.test.ts',
  'test/jobs/wakeups.test.ts',
  'test/http/hostile.test.ts',
  'test/http/environments.test.ts',
  'test/http/idempotency-processes.test.ts',
  'test/server-cluster.test.ts',
  'test/cli/tokens-cli.test.ts',
  'test/cli/listen.test.ts',
  'test/http/timeouts.test.ts',
  'test/console/console-browser.test.ts',
  'test/jobs/clock-crash.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // Runs once per project (each gets its own `pgAvailable`); the reporters once for the whole run.
    globalSetup: ['./test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'quick', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...LONG], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'long', include: LONG, sequence: { groupOrder: 1 }, poolOptions: { forks: { singleFork: true } } } },
    ],
  },
});
