import { ManualClock } from './clock';
import { ExpiringMap } from './expiring-map';

describe('ExpiringMap', () => {
  it('answers an entry until its time ends, then forgets it', () => {
    const clock = new ManualClock();
    const map = new ExpiringMap<string, number>(clock, 10);
    map.set('a', 1, 1_000);
    clock.advance(999);
    expect(map.get('a')).toBe(1);
    clock.advance(1);
    expect(map.get('a')).toBeUndefined();
    expect(map.size).toBe(0);
  });

  it('drops the entry stored longest ago past its bound, telling the caller, and storing again renews an entry', () => {
    const clock = new ManualClock();
    const dropped: Array<[string, number]> = [];
    const map = new ExpiringMap<string, number>(clock, 2, (key, value) => dropped.push([key, value]));
    map.set('a', 1, 60_000);
    map.set('b', 2, 60_000);
    map.set('a', 3, 60_000);
    map.set('c', 4, 60_000);
    expect(dropped).toEqual([['b', 2]]);
    expect([map.get('a'), map.get('b'), map.get('c'), map.size]).toEqual([3, undefined, 4, 2]);
  });

  it('a stored entry is dropped by delete and clear, and a bound below one entry is refused', () => {
    const map = new ExpiringMap<string, string>(new ManualClock(), 5);
    map.set('a', 'x', 1_000);
    map.set('b', 'y', 1_000);
    map.delete('a');
    expect([map.get('a'), map.get('b')]).toEqual([undefined, 'y']);
    map.clear();
    expect(map.size).toBe(0);
    expect(() => new ExpiringMap(new ManualClock(), 0)).toThrow(RangeError);
  });
});
