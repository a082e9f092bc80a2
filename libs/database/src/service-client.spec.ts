import { PreparingClient, ServiceClient } from './prepared-statements';

describe('ServiceClient', () => {
  it.each([ServiceClient, PreparingClient])('%p: an error on an idle connection does not become an uncaught exception', (Kind) => {
    const client = new Kind({ connectionString: 'postgres://127.0.0.1:1/none' });
    // without a listener, EventEmitter throws the error itself: what exited the orders service
    expect(() => client.emit('error', new Error('terminating connection due to unexpected postmaster exit'))).not.toThrow();
    expect(client.listenerCount('error')).toBeGreaterThan(0);
  });
});
