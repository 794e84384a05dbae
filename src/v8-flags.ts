import { setFlagsFromString } from 'node:v8';

/**
 * Imported first by the server entry, before any request code runs. V8's allocation-site
 * pretenuring sometimes decides, from one unlucky young-generation GC early in a process's life,
 * that objects a request allocates are long-lived, and from then on allocates them in the old
 * generation: a full mark-compact every ~300 ms for the rest of the process. On the owner list at
 * 64 connections that happened to about a third of server processes (-20% req/s, p99 7 -> 16 ms);
 * with pretenuring off, to none of the 12 measured (`npm run bench -- list-owners`).
 */
setFlagsFromString('--no-allocation-site-pretenuring');
