import { checkInput } from './codec';
import { DEFAULT_MAX_PIXELS, ImageInfo } from './types';

/** Header-only inspection: format by content, dimensions, channels. Throws WatermarkError when out of range. */
export async function inspectImage(input: Buffer, maxPixels: number = DEFAULT_MAX_PIXELS): Promise<ImageInfo> {
  const h = checkInput(input, maxPixels);
  return Promise.resolve({ format: h.format, width: h.width, height: h.height, channels: h.channels });
}
