import { describe, expect, it } from 'vitest';
import { WebhookTargetPolicy } from '../../../src/domain/webhooks/webhook-targets.js';
import { hostOf, INTERNAL_SPELLINGS } from '../../helpers/internal-targets.js';

const policy = (host: string, serviceEnv: 'sandbox' | 'production' = 'sandbox', webhookAllowedNetworks: string[] = []) =>
  WebhookTargetPolicy.forServer({ host, serviceEnv, webhookAllowedNetworks });

describe('webhook target policy', () => {
  it('lets public addresses through on any server', () => {
    for (const p of [policy('0.0.0.0'), policy('127.0.0.1', 'production'), policy('127.0.0.1')]) {
      for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(p.allowsAddress(address), address).toBe(true);
      expect(p.allowsHost('hooks.example.com')).toBe(true);
    }
  });

  it.each(INTERNAL_SPELLINGS)('refuses %s (%s) on a server reachable from other machines', (spelling) => {
    for (const exposed of [policy('0.0.0.0'), policy('::'), policy('10.1.2.3'), policy('127.0.0.1', 'production'), policy('localhost', 'production')]) {
      expect(exposed.internalAllowed).toBe(false);
      expect(exposed.allowsHost(hostOf(spelling)), spelling).toBe(false);
    }
  });

  it.each(INTERNAL_SPELLINGS)('allows %s (%s) on a loopback-bound sandbox', (spelling) => {
    for (const local of [policy('127.0.0.1'), policy('::1'), policy('[::1]'), policy('localhost'), policy('127.0.0.53')]) {
      expect(local.internalAllowed).toBe(true);
      expect(local.allowsHost(hostOf(spelling)), spelling).toBe(true);
    }
  });

  it('opens exactly the networks of the allow-list on an exposed server', () => {
    const p = policy('0.0.0.0', 'production', ['10.20.0.0/16', 'fd00:1::/32', '127.0.0.1/32']);
    expect(p.allowsAddress('10.20.3.4')).toBe(true);
    expect(p.allowsAddress('::ffff:10.20.3.4')).toBe(true);
    expect(p.allowsAddress('10.21.0.1')).toBe(false);
    expect(p.allowsAddress('fd00:1::5')).toBe(true);
    expect(p.allowsAddress('fd00:2::5')).toBe(false);
    expect(p.allowsHost(hostOf('0x7f.1'))).toBe(true);
    expect(p.allowsHost('localhost')).toBe(true);
    expect(p.allowsHost(hostOf('127.0.0.2'))).toBe(false);
    expect(p.allowsHost(hostOf('169.254.169.254'))).toBe(false);
  });

  it('refuses what is not an address at all', () => {
    expect(policy('0.0.0.0').allowsAddress('example.com')).toBe(false);
    expect(policy('0.0.0.0').allowsAddress('')).toBe(false);
  });
});
