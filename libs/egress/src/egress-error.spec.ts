import { asEgressError, EgressError, EgressFailure, publicNetworkFailure } from './egress-error';

/** A socket, DNS or TLS error as Node raises it: a message naming the address, and a code. */
function nodeError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('publicNetworkFailure', () => {
  it.each([
    ['ECONNREFUSED', 'connect ECONNREFUSED 203.0.113.7:443', 'the connection was refused'],
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND hooks.example.com', 'the host name could not be resolved'],
    ['ECONNRESET', 'read ECONNRESET', 'the receiver closed the connection'],
    ['ETIMEDOUT', 'connect ETIMEDOUT 203.0.113.7:443', 'the receiver could not be reached'],
    ['CERT_HAS_EXPIRED', 'certificate has expired', 'the TLS handshake failed (CERT_HAS_EXPIRED)'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate', 'the TLS handshake failed (DEPTH_ZERO_SELF_SIGNED_CERT)'],
    ['EWHATEVER', 'something internal at 203.0.113.7', 'the connection failed'],
  ])('%s: a fixed sentence, without the address Node named', (code, message, expected) => {
    const said = publicNetworkFailure(asEgressError(nodeError(code, message)));
    expect(said).toBe(expected);
    expect(said).not.toContain('203.0.113.7');
  });

  it("egress's own failures and errors without a code", () => {
    expect(publicNetworkFailure(new EgressError(EgressFailure.NETWORK, 'hooks.example.com has no address'))).toBe('the host name could not be resolved');
    expect(publicNetworkFailure(asEgressError(new Error('socket hang up')))).toBe('the receiver closed the connection');
    expect(publicNetworkFailure(asEgressError('odd'))).toBe('the connection failed');
  });
});
