import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import type { WebhookTargetPolicy } from '../domain/webhooks/webhook-targets.js';

/** A connection the target policy refused. Its message names no address, so it maps nothing of the network. */
export class TargetNotAllowedError extends Error {
  readonly code = 'WEBHOOK_TARGET_NOT_ALLOWED';
  constructor() {
    super("the endpoint's address is not allowed from this server (loopback, private, link-local or another internal network)");
  }
}

/**
 * Resolves a name and keeps only the addresses the policy allows, so the socket connects to a
 * checked address: a name that resolves to an internal address (DNS rebinding included) gets nowhere.
 */
function checkedLookup(targets: WebhookTargetPolicy, resolve: LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, options.all ? [] : '');
      const allowed = (addresses as LookupAddress[]).filter((a) => targets.allowsAddress(a.address));
      const first = allowed[0];
      if (!first) return callback(new TargetNotAllowedError(), options.all ? [] : '');
      if (options.all) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * undici's connector with the target policy applied to every new connection: an address literal
 * (or a localhost name) is judged as it is, any other name through checkedLookup. `resolve` is the
 * DNS lookup (tests give their own).
 */
export function guardedConnector(targets: WebhookTargetPolicy, timeoutMs: number, resolve: LookupFunction = dnsLookup): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs, lookup: checkedLookup(targets, resolve) });
  return (options, callback) => {
    if (!targets.allowsHost(options.hostname)) return callback(new TargetNotAllowedError(), null);
    connect(options, callback);
  };
}
