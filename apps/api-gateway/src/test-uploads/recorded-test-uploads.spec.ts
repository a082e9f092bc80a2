import { ManualClock } from '@cp/clock';
import { RECORDED_UPLOAD_MAX_ENTRIES, RECORDED_UPLOAD_TTL_MS, RecordedTestUploads } from './recorded-test-uploads';

describe('RecordedTestUploads', () => {
  it('answers a recorded token until the longest token validity has passed', () => {
    const clock = new ManualClock();
    const recorded = new RecordedTestUploads(clock);
    expect(recorded.find('t')).toBeNull();
    recorded.remember('t', { fileId: '1', size: 5 });
    clock.advance(RECORDED_UPLOAD_TTL_MS - 1);
    expect(recorded.find('t')).toEqual({ fileId: '1', size: 5 });
    clock.advance(1);
    expect(recorded.find('t')).toBeNull();
    expect(recorded.size).toBe(0);
  });

  it('keeps a bounded number of tokens, dropping the oldest', () => {
    const recorded = new RecordedTestUploads(new ManualClock());
    for (let index = 0; index <= RECORDED_UPLOAD_MAX_ENTRIES; index += 1) {
      recorded.remember(`t${index}`, { fileId: String(index), size: 1 });
    }
    expect(recorded.size).toBe(RECORDED_UPLOAD_MAX_ENTRIES);
    expect(recorded.find('t0')).toBeNull();
    expect(recorded.find(`t${RECORDED_UPLOAD_MAX_ENTRIES}`)).toEqual({ fileId: String(RECORDED_UPLOAD_MAX_ENTRIES), size: 1 });
  });
});
