import ipaddr from 'ipaddr.js';
import type { Config } from '../../config.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** IPv6 outside 2000::/3 (global unicast) is never a public endpoint; ipaddr.js calls some of it, like ::7f00:1, unicast. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** `localhost` and its subdomains always mean this machine (RFC 6761), so they count as a loopback literal. */
const isLocalhostName = (host: string) => /(^|\.)localhost\.?$/i.test(host);

function isPublic(ip: Address): boolean {
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  return ip.range() === 'unicast' && ip.match(GLOBAL_UNICAST_V6);
}

/** IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it reaches. */
const parseAddress = (address: string): Address | undefined => (ipaddr.isValid(address) ? ipaddr.process(address) : undefined);

/**
 * Which addresses webhook deliveries may reach. A server reachable from other machines (bound
 * beyond loopback, or in production) reaches public unicast addresses only, plus the networks an
 * operator allows; a loopback-bound sandbox, which only its own machine can call, reaches anything
 * that machine can already reach. Judged on addresses: names are resolved and checked by the sender.
 */
export class WebhookTargetPolicy {
  private constructor(
    /** False on a server reachable from other machines. */
    readonly internalAllowed: boolean,
    private readonly allowedNetworks: [Address, number][],
  ) {}

  /** The policy of a server listening on `host`, with the operator's WEBHOOK_ALLOWED_NETWORKS. */
  static forServer(config: Pick<Config, 'host' | 'serviceEnv' | 'webhookAllowedNetworks'>): WebhookTargetPolicy {
    const host = config.host.replace(/^\[|\]$/g, '');
    const loopbackBound = isLocalhostName(host) || parseAddress(host)?.range() === 'loopback';
    const networks = config.webhookAllowedNetworks.map((cidr) => ipaddr.parseCIDR(cidr));
    return new WebhookTargetPolicy(loopbackBound && config.serviceEnv !== 'production', networks);
  }

  /** True when a connection to this IP address is allowed; anything that is not an IP address is refused. */
  allowsAddress(address: string): boolean {
    const ip = parseAddress(address);
    if (!ip) return false;
    if (this.internalAllowed || isPublic(ip)) return true;
    return this.allowedNetworks.some(([network, bits]) => network.kind() === ip.kind() && ip.match(network, bits));
  }

  /**
   * False when an endpoint's host (as the URL parser normalised it) is an address, or a localhost
   * name, that deliveries may not reach; other names pass here and are checked on each connection.
   */
  allowsHost(hostname: string): boolean {
    const host = hostname.replace(/^\[|\]$/g, '');
    if (isLocalhostName(host)) return this.allowsAddress('127.0.0.1') || this.allowsAddress('::1');
    return ipaddr.isValid(host) ? this.allowsAddress(host) : true;
  }
}
