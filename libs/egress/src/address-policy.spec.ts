import { AddressPolicy, normaliseIp } from './address-policy';

describe('AddressPolicy', () => {
  const strict = new AddressPolicy();

  it.each([
    ['127.0.0.1'],
    ['10.1.2.3'],
    ['172.16.0.1'],
    ['192.168.1.1'],
    ['169.254.169.254'],
    ['169.254.1.1'],
    ['100.64.0.1'],
    ['0.0.0.0'],
    ['::'],
    ['::1'],
    ['fe80::1'],
    ['fc00::1'],
    ['fd00:ec2::254'],
    ['::ffff:127.0.0.1'],
    ['::ffff:7f00:1'],
    ['::ffff:169.254.169.254'],
    ['::ffff:10.0.0.1'],
    ['::7f00:1'],
    ['64:ff9b::7f00:1'],
    ['2002:7f00:1::'],
    ['224.0.0.1'],
    ['255.255.255.255'],
    ['[::1]'],
  ])('refuses %s', (address) => {
    expect(strict.refusalOf(address)).toEqual(expect.any(String));
  });

  it.each([['8.8.8.8'], ['93.184.215.14'], ['2606:4700::1111'], ['::ffff:8.8.8.8']])('lets the public address %s through', (address) => {
    expect(strict.refusalOf(address)).toBeNull();
  });

  it('refuses what is not an IP address', () => {
    expect(strict.refusalOf('localhost')).toMatch(/not an IP address/);
  });

  it('an allow-listed address passes, in its IPv4-mapped form too, and nothing else of its range does', () => {
    const policy = new AddressPolicy({ allowedIps: ['127.0.0.1'] });
    expect(policy.refusalOf('127.0.0.1')).toBeNull();
    expect(policy.refusalOf('::ffff:127.0.0.1')).toBeNull();
    expect(policy.refusalOf('127.0.0.2')).toMatch(/loopback/);
    expect(policy.refusalOf('::ffff:127.0.0.2')).toMatch(/loopback/);
    expect(policy.refusalOf('::ffff:10.0.0.1')).toMatch(/private/);
    expect(policy.refusalOf('::1')).toMatch(/loopback/);
  });

  it('metadata and unspecified addresses are refused even when listed or when private ones are allowed', () => {
    const listed = new AddressPolicy({ allowedIps: ['169.254.169.254', 'fd00:ec2::254', '0.0.0.0'] });
    const anyPrivate = new AddressPolicy({ allowPrivate: true });
    for (const policy of [listed, anyPrivate]) {
      expect(policy.refusalOf('169.254.169.254')).toMatch(/metadata/);
      expect(policy.refusalOf('::ffff:169.254.169.254')).toMatch(/metadata/);
      expect(policy.refusalOf('::ffff:a9fe:a9fe')).toMatch(/metadata/);
      expect(policy.refusalOf('fd00:ec2:0::254')).toMatch(/metadata/);
      expect(policy.refusalOf('0.0.0.0')).toMatch(/unspecified/);
      expect(policy.refusalOf('::ffff:0.0.0.0')).toMatch(/unspecified/);
    }
    expect(anyPrivate.refusalOf('10.0.0.1')).toBeNull();
  });

  it('normalises addresses to one form', () => {
    expect(normaliseIp('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(normaliseIp('[::1]')).toBe('0:0:0:0:0:0:0:1');
    expect(normaliseIp('example.com')).toBeNull();
  });
});
