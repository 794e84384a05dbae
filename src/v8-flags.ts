import { setFlagsFromString } from 'node:v8';

/**
 * Imported first by the server entry, before any request code runs. With V8's allocation-site
 * pretenuring on, about a third of server processes fell for their whole life into a mode where
 * every young-generation GC promoted ~2 MB of request objects (HTTP request and response, streams,
 * pages read) and a full mark-compact ran every ~300 ms: on the owner list at 64 connections -20%
 * req/s and p99 7 -> 16 ms. With it off, none of 27 measured runs did (`npm run bench -- list-owners`).
 */
setFlagsFromString('--no-allocation-site-pretenuring');
