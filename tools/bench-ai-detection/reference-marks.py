#!/usr/bin/env python3
"""
Outside reference for the Stable Diffusion mark decoder: embeds the `invisible-watermark` dwtDct mark with OpenCV
and PyWavelets (Debian: python3-opencv, python3-pywt), written here from the published algorithm, not from the
project's TypeScript encoder, and reproducing what the public pipelines do around it:

  sd1 / sd2   CompVis txt2img: RGB uint8 -> BGR, encode on uint8 (the U plane written back into a uint8 array:
              truncated, not rounded), BGR -> RGB.
  sdxl        diffusers watermarker: float32 RGB in 0..255 handed over as if BGR (channels swapped), float U offset
              0.5, clamped, then rounded to uint8 when the pipeline saves the image.
  sgm         Stability generative-models: float32 in 0..255 reversed to BGR (not swapped), float, then uint8.

The encoder, as published: U = channel 1 of cv2.cvtColor(BGR2YUV) (scales [0, 36, 36] and `for channel in
range(2)` mean only U is marked); one-level Haar DWT (pywt.dwt2) of the top-left area in multiples of 4; the LL band
in 4x4 blocks, raster order, block n carries bit n mod L; in each block the coefficient of largest magnitude among
positions 1..15 becomes sign * (floor(|c| / 36) + 0.25 + 0.5 * bit) * 36; inverse DWT with the horizontal and
vertical detail bands passed in swapped order (idwt2((ca, (v, h, d)))), as the published code does.

Usage: reference-marks.py OUT_DIR IMAGE... (writes OUT_DIR/<image stem>.<message>.png and OUT_DIR/manifest.json)
"""
import json
import os
import sys

import cv2
import numpy as np
import pywt

STEP = 36.0


def text_bits(text):
    return [int(b) for byte in text.encode('utf-8') for b in format(byte, '08b')]


def literal_bits(literal):
    # Python's bin(x)[2:]: leading zeros dropped
    return [int(c) for c in bin(int(literal, 2))[2:]]


MESSAGES = {
    'sd1': text_bits('StableDiffusionV1'),
    'sd2': text_bits('SDV2'),
    'sdxl-diffusers': literal_bits('101100111110110010010000011110111011000110011110'),
    'sgm': literal_bits('001010101111111010000111100111001111010100101110'),
}


def mark_plane(plane, bits):
    """Marks the LL band of one float plane (rows and columns already multiples of 4); returns the new plane."""
    ll, (h, v, d) = pywt.dwt2(plane, 'haar')
    rows, cols = ll.shape
    n = 0
    for i in range(rows // 4):
        for j in range(cols // 4):
            block = ll[4 * i:4 * i + 4, 4 * j:4 * j + 4]
            flat = np.abs(block.flatten()[1:])
            pos = int(np.argmax(flat)) + 1
            y, x = pos // 4, pos % 4
            value = block[y, x]
            bit = bits[n % len(bits)]
            magnitude = (np.floor(abs(value) / STEP) + 0.25 + 0.5 * bit) * STEP
            block[y, x] = magnitude if value >= 0 else -magnitude
            n += 1
    return pywt.idwt2((ll, (v, h, d)), 'haar')


def encode(bgr, bits):
    rows, cols = bgr.shape[0] // 4 * 4, bgr.shape[1] // 4 * 4
    yuv = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV)
    marked = mark_plane(yuv[:rows, :cols, 1].astype(np.float64), bits)
    if yuv.dtype == np.uint8:
        # numpy's float -> uint8 assignment truncates (values outside 0..255 wrap; clip them as a saved PNG would)
        yuv[:rows, :cols, 1] = np.clip(marked, 0, 255).astype(np.uint8)
    else:
        yuv[:rows, :cols, 1] = marked
    return cv2.cvtColor(yuv, cv2.COLOR_YUV2BGR)


def pipeline(rgb, message):
    bits = MESSAGES[message]
    if message in ('sd1', 'sd2'):
        bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
        return cv2.cvtColor(encode(bgr, bits), cv2.COLOR_BGR2RGB)
    as_float = rgb.astype(np.float32)
    if message == 'sdxl-diffusers':
        out = encode(as_float, bits)  # RGB handed over as BGR: the channels stay swapped on the way back too
    else:
        out = encode(np.ascontiguousarray(as_float[:, :, ::-1]), bits)[:, :, ::-1]
    return np.clip(np.round(out), 0, 255).astype(np.uint8)


def main():
    out_dir, images = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    manifest = []
    for path in images:
        bgr = cv2.imread(path, cv2.IMREAD_COLOR)
        if bgr is None:
            continue
        rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
        stem = os.path.splitext(os.path.basename(path))[0]
        for message in MESSAGES:
            name = f'{stem}.{message}.png'
            cv2.imwrite(os.path.join(out_dir, name), cv2.cvtColor(pipeline(rgb, message), cv2.COLOR_RGB2BGR))
            manifest.append({'file': name, 'source': os.path.basename(path), 'message': message})
    with open(os.path.join(out_dir, 'manifest.json'), 'w') as f:
        json.dump({'opencv': cv2.__version__, 'pywt': pywt.__version__, 'numpy': np.__version__, 'images': manifest}, f, indent=1)


if __name__ == '__main__':
    main()
