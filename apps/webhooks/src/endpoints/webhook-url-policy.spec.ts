import { checkWebhookUrl, isBlockedAddress } from './webhook-url-policy';

const production = { allowHttp: false, allowedTargetIps: [] };
const development = { allowHttp: true, allowedTargetIps: ['127.0.0.1'] };

describe('webhook URL policy', () => {
  it('accepts a public HTTPS URL', () => {
    const check = checkWebhookUrl('https://hooks.example.com/cp?x=1', production);
    expect(check).toMatchObject({ ok: true });
  });

  it('refuses plain HTTP unless switched on for development', () => {
    expect(checkWebhookUrl('http://hooks.example.com/cp', production)).toEqual({ ok: false, reason: 'scheme must be https' });
    expect(checkWebhookUrl('http://hooks.example.com/cp', development)).toMatchObject({ ok: true });
  });

  it.each(['ftp://example.com/x', 'javascript:alert(1)', 'not a url', '/relative/path'])('refuses %s', (url) => {
    expect(checkWebhookUrl(url, development).ok).toBe(false);
  });

  it('refuses credentials and fragments', () => {
    expect(checkWebhookUrl('https://user:pass@example.com/', production).ok).toBe(false);
    expect(checkWebhookUrl('https://example.com/#frag', production).ok).toBe(false);
  });

  it.each([
    'https://127.0.0.1/',
    'https://10.1.2.3/',
    'https://172.16.0.1/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://[::1]/',
    'https://[fe80::1]/',
    'https://[fd00::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://localhost/',
    'https://api.localhost/',
    'https://metadata.google.internal/',
    'https://localhost./',
    'https://LOCALHOST../',
    'https://metadata.google.internal./',
    'https://foo.internal/',
    'https://foo.local./',
    'https://orders.default.svc/',
    'https://metadata/',
  ])('refuses the private, loopback, link-local or metadata target %s', (url) => {
    expect(checkWebhookUrl(url, production).ok).toBe(false);
  });

  it('lets an allow-listed address through, and only that one', () => {
    expect(checkWebhookUrl('http://127.0.0.1:8080/hook', development)).toMatchObject({ ok: true });
    expect(checkWebhookUrl('http://127.0.0.2:8080/hook', development).ok).toBe(false);
  });

  it('classifies addresses', () => {
    expect(isBlockedAddress('8.8.8.8')).toBe(false);
    expect(isBlockedAddress('2001:4860:4860::8888')).toBe(false);
    expect(isBlockedAddress('169.254.169.254')).toBe(true);
    expect(isBlockedAddress('127.0.0.1', ['127.0.0.1'])).toBe(false);
    expect(isBlockedAddress('example.com')).toBe(false);
  });
});

describe('webhook URL policy judges addresses as delivery does', () => {
  it.each(['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '::127.0.0.1', '100.100.100.200', 'fd00:ec2::254', '0.0.0.0'])('refuses %s', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it('keeps metadata refused even when listed', () => {
    expect(isBlockedAddress('169.254.169.254', ['169.254.169.254'])).toBe(true);
  });

  it('accepts an allow-listed loopback address in its mapped spelling too', () => {
    expect(isBlockedAddress('::ffff:127.0.0.1', ['127.0.0.1'])).toBe(false);
  });
});
