#!/bin/sh
# Regenerates the small test fixtures of libs/watermark (and libs/watermark-pdf) from the shared corpus
# (../shared/corpus beside the repository). Needs ImageMagick (`convert`). The tests never read the corpus:
# they read only what this script wrote (committed). Supported formats at 256 px (they are embedded and extracted),
# refused formats at 128 px (only their headers matter).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
CORPUS=${CORPUS:-$HERE/../../../../shared/corpus}
F=$CORPUS/formats
OUT=$HERE/formats
mkdir -p "$OUT" "$HERE/photos" "$HERE/pdfs"
cd "$OUT"
convert "$F/bmp-24bit-rgb.bmp" -resize 256x256 BMP3:bmp-24bit-rgb.bmp
convert "$F/bmp-8bit-gray.bmp" -resize 256x256 -colorspace gray -colors 256 -type Palette -compress none BMP3:bmp-8bit-gray.bmp
cp "$F/bmp-1bit.bmp" bmp-1bit.bmp  # 1-bit: kept at 512 px (32 KB), 256 px has too few edge pixels to carry the mark
convert "$F/tif-8bit-rgb.tif" -resize 256x256 -compress none tif-8bit-rgb.tif
convert "$F/tiff-8bit-rgb-lzw.tiff" -resize 256x256 -compress LZW tiff-8bit-rgb-lzw.tiff
convert "$F/tif-8bit-gray.tif" -resize 256x256 tif-8bit-gray.tif
cp "$F/tif-1bit.tif" tif-1bit.tif
convert "$F/webp-lossy.webp" -resize 256x256 -quality 80 webp-lossy.webp
convert "$F/webp-lossless.webp" -resize 256x256 -define webp:lossless=true webp-lossless.webp
convert "$F/jpeg-progressive.jpeg" -resize 256x256 -interlace JPEG jpeg-progressive.jpeg
convert "$F/jpg-cmyk.jpg" -resize 256x256 jpg-cmyk.jpg
convert "$F/png-rgba.png" -resize 256x256 png-rgba.png
convert "$F/png-16bit.png" -resize 256x256 -depth 16 png-16bit.png
convert "$F/bmp-8bit-palette-color.bmp" -resize 128x128 -colors 200 -type Palette -compress none BMP3:bmp-8bit-palette-color.bmp
convert "$F/bmp-32bit-alpha.bmp" -resize 128x128 -alpha on BMP:bmp-32bit-alpha.bmp
convert "$F/bmp-rle-compressed.bmp" -resize 128x128 -colors 200 -type Palette -compress RLE BMP3:bmp-rle-compressed.bmp
convert "$F/tif-16bit-rgb.tif" -resize 128x128 tif-16bit-rgb.tif
convert "$F/tif-multipage.tif" -resize 128x128 tif-multipage.tif
convert "$F/tif-cmyk.tif" -resize 128x128 tif-cmyk.tif
convert "$F/tif-rgba.tif" -resize 128x128 tif-rgba.tif
convert "$F/tif-palette.tif" -resize 128x128 -colors 200 -type Palette tif-palette.tif
# photos: astronaut as a high-quality JPEG (the tests decode it to PNG), the small text scan as is
convert "$CORPUS/photos/astronaut.png" -quality 95 "$HERE/photos/astronaut.jpg"
cp "$CORPUS/photos/text.png" "$HERE/photos/text.png"
# coffee (smooth content: the small-crop registration test) as a JPEG q85 made by sharp (the byte-exact fixture)
node -e "require('sharp')(process.argv[1]).jpeg({ quality: 85 }).toFile(process.argv[2])" "$CORPUS/photos/coffee.png" "$HERE/photos/coffee.jpg"
cp "$CORPUS/pdfs/text-1-page.pdf" "$HERE/../../watermark-pdf/test-fixtures/text-1-page.pdf"
