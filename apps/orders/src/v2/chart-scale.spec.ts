import { chartScale } from './chart-scale';

describe('chartScale', () => {
  it.each([
    [0, [0, 4], [0, 1, 2, 3, 4]],
    [3, [0, 4], [0, 1, 2, 3, 4]],
    [7, [0, 8], [0, 2, 4, 6, 8]],
    [20, [0, 20], [0, 5, 10, 15, 20]],
    [21, [0, 40], [0, 10, 20, 30, 40]],
    [130, [0, 200], [0, 50, 100, 150, 200]],
  ])('max %d → domain %j', (max, domain, ticks) => {
    expect(chartScale(max)).toEqual({ domain, ticks });
  });

  it('the top always covers the maximum', () => {
    for (let max = 0; max < 5000; max += 7) {
      const { domain, ticks } = chartScale(max);
      expect(domain[1]).toBeGreaterThanOrEqual(max);
      expect(ticks[ticks.length - 1]).toBe(domain[1]);
    }
  });
});
