import { GatewayConfig } from '../gateway.config';
import { RelaySlots } from './relay-slots';

const slotsOf = (maxConcurrent: number, maxPerObject: number) => new RelaySlots({ results: { maxConcurrent, maxPerObject } } as Pick<GatewayConfig, 'results'>);

describe('RelaySlots', () => {
  it('gives at most maxPerObject slots per file and maxConcurrent in all', () => {
    const slots = slotsOf(3, 2);
    const a1 = slots.take('/b/a');
    const a2 = slots.take('/b/a');
    expect(slots.take('/b/a')).toBe('object-busy');
    const c = slots.take('/b/c');
    expect(slots.take('/b/d')).toBe('replica-busy');
    expect([typeof a1, typeof a2, typeof c]).toEqual(['function', 'function', 'function']);
    expect(slots.inUse).toBe(3);
  });

  it('gives a slot back once, however often its release is called', () => {
    const slots = slotsOf(2, 2);
    const first = slots.take('/b/a');
    const second = slots.take('/b/a');
    if (typeof first !== 'function' || typeof second !== 'function') {
      throw new Error('expected two slots');
    }
    first();
    first();
    expect(slots.inUse).toBe(1);
    expect(typeof slots.take('/b/a')).toBe('function');
    expect(slots.take('/b/a')).toBe('object-busy');
    second();
    expect(slots.inUse).toBe(1);
  });
});
