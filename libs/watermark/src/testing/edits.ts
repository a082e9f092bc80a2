import sharp from 'sharp';

/**
 * Rotation by `deg` with the borders cropped away: the largest centred rectangle of the original aspect inside the
 * rotated image (an editor's "straighten"). Shared by the benchmark's attacks and the fast regression guard.
 */
export async function rotateCrop(img: Buffer, deg: number): Promise<Buffer> {
  const meta = await sharp(img).metadata();
  const w = meta.width ?? 0;
  const h = meta.height ?? 0;
  const rot = await sharp(img).rotate(deg, { background: '#808080' }).toBuffer({ resolveWithObject: true });
  const a = (Math.abs(deg) * Math.PI) / 180;
  const s = Math.min(w / (w * Math.cos(a) + h * Math.sin(a)), h / (w * Math.sin(a) + h * Math.cos(a)));
  const cw = Math.floor(w * s) - 2;
  const ch = Math.floor(h * s) - 2;
  return sharp(rot.data)
    .extract({ left: Math.floor((rot.info.width - cw) / 2), top: Math.floor((rot.info.height - ch) / 2), width: cw, height: ch })
    .png()
    .toBuffer();
}
