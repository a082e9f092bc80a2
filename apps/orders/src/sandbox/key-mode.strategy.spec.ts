import { KeyMode, OrderStatus } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { Order, OrderFileState, OrderOutputState } from '../domain/order';
import { v2FileKey } from '../v2/v2-view.mapper';
import { KeyModesService } from './key-modes.service';
import { SampleFiles } from './sample-files';

const storage = { buckets: { inputs: 'in', outputs: 'out' } } as unknown as ObjectStorage;
const samples = { forOrder: (count: number) => ({ bucket: 'out', key: count > 1 ? 'samples/zip' : 'samples/png', fileName: 'sample' }) } as unknown as SampleFiles;
const modes = new KeyModesService(storage, samples);

function order(mode: KeyMode, outputCount: number, packageKey: string | null, uploaded = true, status: OrderStatus = 'complete'): Order {
  const file: OrderFileState = {
    id: '5',
    position: 0,
    role: 'input',
    fileName: 'photo.png',
    sourceUrl: null,
    mediaKind: 'image',
    status: uploaded ? 'uploaded' : 'awaiting_upload',
    size: '10',
  };
  const outputs: OrderOutputState[] = Array.from({ length: outputCount }, (_, index) => ({
    fileId: `5-${index + 1}`,
    inputFileId: '5',
    inputPosition: 0,
    outputIndex: index,
    watermarkText: `t${index}`,
    status: 'completed',
    mediaKind: 'image',
    objectKey: `3/9/outputs/5-${index + 1}.png`,
    failureCode: null,
  }));
  const at = new Date('2026-10-01T00:00:00.000Z');
  return new Order(
    {
      id: '9',
      accountId: '3',
      mode,
      type: 'watermarkEmbed',
      apiVersion: 'v3',
      status,
      processingDelayed: false,
      failureCode: null,
      creditsCharged: 0,
      packageKey,
      options: null,
      typeResult: null,
      expiresAt: new Date(at.getTime() + 3600_000),
      completedAt: at,
      failedAt: null,
      createdAt: at,
      updatedAt: at,
    },
    [file],
    outputs,
  );
}

describe('key modes: every live/test difference in one strategy', () => {
  it('live downloads hand out the output itself, or the ZIP of several', () => {
    const single = order('live', 1, '3/9/outputs/5-1.png');
    expect(modes.of(single).downloadTarget(single)).toEqual({ bucket: 'out', key: '3/9/outputs/5-1.png', fileName: 'photo-watermarked-5-1.png' });
    const several = order('live', 2, '3/9/package.zip');
    expect(modes.of(several).downloadTarget(several)).toEqual({ bucket: 'out', key: '3/9/package.zip', fileName: '9-watermarked.zip' });
    expect(modes.of(several).downloadTarget(several, several.outputs[1]).key).toBe('3/9/outputs/5-2.png');
  });

  it('test keys hand out the sample files and never a stored input', async () => {
    const several = order('test', 2, null);
    expect(modes.of(several).downloadTarget(several).key).toBe('samples/zip');
    expect(modes.of(several).downloadTarget(several, several.outputs[0]).key).toBe('samples/png');
    await expect(modes.of(several).archiveTarget(several)).resolves.toMatchObject({ key: 'samples/zip' });
    expect(modes.of(several).storedInput(several)).toBeNull();
  });

  it('live orders keep their uploaded image inputs (thumbnails), not the ones still awaited', () => {
    const uploaded = order('live', 1, null);
    const input = modes.of(uploaded).storedInput(uploaded);
    expect(input).toMatchObject({ bucket: 'in', fileName: 'photo.png' });
    expect(input?.key).toMatch(/^3\/9\/.*5.*photo\.png$/);
    const waiting = order('live', 1, null, false);
    expect(modes.of(waiting).storedInput(waiting)).toBeNull();
  });

  it('a failed live order points at no input when it never had all its files (uploads deleted them), and keeps them when it had', () => {
    const withSecond = (built: Order, status: OrderFileState['status']): Order =>
      new Order(built.state, [...built.files, { ...built.files[0], id: '6', position: 1, fileName: 'second.png', status }], built.outputs);
    const neverStarted = withSecond(order('live', 1, null, true, 'failed'), 'awaiting_upload');
    expect(neverStarted.failedBeforeAllFiles()).toBe(true);
    expect(modes.of(neverStarted).storedInput(neverStarted)).toBeNull();
    const refused = withSecond(order('live', 1, null, true, 'failed'), 'failed');
    expect(modes.of(refused).storedInput(refused)).toBeNull();
    // All its files were in when it failed: the inputs stay until retention, and so does the link.
    const started = withSecond(order('live', 1, null, true, 'failed'), 'uploaded');
    expect(started.failedBeforeAllFiles()).toBe(false);
    expect(modes.of(started).storedInput(started)).toMatchObject({ bucket: 'in', fileName: 'photo.png' });
    // Still pending with a file missing: the uploaded input is kept and shown.
    const pending = withSecond(order('live', 1, null, true, 'pending'), 'awaiting_upload');
    expect(modes.of(pending).storedInput(pending)).toMatchObject({ bucket: 'in', fileName: 'photo.png' });
  });

  it('test-key file keys are isolated under test/ (spec 4.12)', () => {
    const file = { id: '5', fileName: 'photo.png' };
    const live = v2FileKey({ accountId: '3', id: '9', mode: 'live' }, file);
    expect(v2FileKey({ accountId: '3', id: '9', mode: 'test' }, file)).toBe(`test/${live}`);
    expect(live.startsWith('test/')).toBe(false);
  });
});
