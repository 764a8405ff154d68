"""Seeds of the `image` target, and the small image writers that make them with the standard
library only: PNG (every filter type, interlaced, 1 to 16 bits, palette), PGM/PPM, BMP, TIFF
(uncompressed and PackBits), GIF (uncompressed LZW codes) and baseline grey JPEG (integer DCT).
The pictures are crops of tests/data/coins.png; a few damaged files complete the set."""

import struct
import zlib

from .common import INTRO, read, seed

IMAGE_TEST = "tests/core/test_image_io.cpp"


def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png_decode_grey8(png):
    """Pixels (rows of bytes) of an 8-bit grey, non-interlaced PNG (coins.png)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    p, idat = 8, b""
    while p < len(png):
        n = struct.unpack(">I", png[p:p + 4])[0]
        kind, body = png[p + 4:p + 8], png[p + 8:p + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert (depth, ctype, interlace) == (8, 0, 0)
        elif kind == b"IDAT":
            idat += body
        p += 12 + n
    raw = zlib.decompress(idat)
    rows, prev = [], bytearray(w)
    for r in range(h):
        f, line = raw[r * (w + 1)], bytearray(raw[r * (w + 1) + 1:(r + 1) * (w + 1)])
        for x in range(w):
            a = line[x - 1] if x else 0
            b, c = prev[x], (prev[x - 1] if x else 0)
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return rows


def png_filter_rows(rows, bpp):
    """Each row with a filter byte, the filter type cycling 0–4 so that every one is used."""
    out, prev = b"", bytes(len(rows[0]))
    for r, line in enumerate(rows):
        f = r % 5
        enc = bytearray()
        for x in range(len(line)):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 0:
                pred = 0
            elif f == 1:
                pred = a
            elif f == 2:
                pred = b
            elif f == 3:
                pred = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
            enc.append((line[x] - pred) & 255)
        out += bytes([f]) + bytes(enc)
        prev = line
    return out


def png(width, height, rows, depth=8, ctype=0, extra=b"", interlace=False, bpp=1):
    """A PNG from rows of packed sample bytes; `extra` = chunks before IDAT (PLTE, tRNS…)."""
    ihdr = struct.pack(">IIBBBBB", width, height, depth, ctype, 0, 0, 1 if interlace else 0)
    if not interlace:
        raw = png_filter_rows(rows, bpp)
    else:
        assert depth == 8 and bpp == 1
        raw = b""
        for x0, y0, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4),
                               (1, 0, 2, 2), (0, 1, 1, 2)):
            sub = [bytes(rows[y][x] for x in range(x0, width, dx)) for y in range(y0, height, dy)]
            if sub and sub[0]:
                raw += png_filter_rows(sub, bpp)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + extra
            + png_chunk(b"IDAT", zlib.compress(raw, 9)) + png_chunk(b"IEND", b""))


def pnm(magic, width, height, maxval, samples, comment=b""):
    head = magic + b"\n" + (b"# " + comment + b"\n" if comment else b"") + b"%d %d\n%d\n" % (width, height, maxval)
    if magic in (b"P2", b"P3"):
        per_line = width * (3 if magic == b"P3" else 1)
        lines = [b" ".join(b"%d" % v for v in samples[i:i + per_line]) for i in range(0, len(samples), per_line)]
        return head + b"\n".join(lines) + b"\n"
    if maxval > 255:
        return head + b"".join(struct.pack(">H", v) for v in samples)
    return head + bytes(samples)


def bmp(width, height, rows_rgb=None, rows_grey=None, top_down=False):
    """BMP with a BITMAPINFOHEADER: 8-bit with a grey palette, or 24-bit BGR."""
    if rows_grey is not None:
        bits, palette = 8, b"".join(bytes([i, i, i, 0]) for i in range(256))
        lines = [bytes(r) for r in rows_grey]
    else:
        bits, palette = 24, b""
        lines = [b"".join(bytes([b, g, r]) for r, g, b in row) for row in rows_rgb]
    stride = (len(lines[0]) + 3) // 4 * 4
    if not top_down:
        lines = lines[::-1]
    pixels = b"".join(l + b"\0" * (stride - len(l)) for l in lines)
    offset = 14 + 40 + len(palette)
    info = struct.pack("<IiiHHIIiiII", 40, width, -height if top_down else height, 1, bits, 0,
                       len(pixels), 2835, 2835, 256 if bits == 8 else 0, 0)
    return b"BM" + struct.pack("<IHHI", offset + len(pixels), 0, 0, offset) + info + palette + pixels


def tiff(width, height, samples, spp, big=False, packbits=False):
    """A baseline TIFF, one strip per row: grey (spp 1) or RGB (spp 3), 8 bits, uncompressed or
    PackBits."""
    e = ">" if big else "<"
    rows = [bytes(samples[r * width * spp:(r + 1) * width * spp]) for r in range(height)]

    def pack(row):  # PackBits: repeats of 3 or more as runs, the rest as literals
        out, i = b"", 0
        while i < len(row):
            j = i
            while j < len(row) and row[j] == row[i] and j - i < 128:
                j += 1
            if j - i >= 3:
                out += bytes([257 - (j - i)]) + row[i:i + 1]
                i = j
                continue
            j = i + 1
            while j < len(row) and j - i < 128 and not (j + 2 < len(row) and row[j] == row[j + 1] == row[j + 2]):
                j += 1
            out += bytes([j - i - 1]) + row[i:j]
            i = j
        return out

    strips = [pack(r) for r in rows] if packbits else rows
    SHORT, LONG, RATIONAL = 3, 4, 5

    def layout(data_at):
        offsets, at = [], data_at
        for strip in strips:
            offsets.append(at)
            at += len(strip)
        return [(256, SHORT, [width]), (257, SHORT, [height]), (258, SHORT, [8] * spp),
                (259, SHORT, [32773 if packbits else 1]), (262, SHORT, [2 if spp == 3 else 1]),
                (273, LONG, offsets), (277, SHORT, [spp]), (278, SHORT, [1]),
                (279, LONG, [len(strip) for strip in strips]), (282, RATIONAL, [72, 1]),
                (283, RATIONAL, [72, 1]), (284, SHORT, [1]), (296, SHORT, [2])]

    def encode(entries):
        extra_at = 8 + 2 + 12 * len(entries) + 4
        ifd, extra = struct.pack(e + "H", len(entries)), b""
        for tag, typ, values in entries:
            blob = struct.pack(e + {SHORT: "H", LONG: "I", RATIONAL: "I"}[typ] * len(values), *values)
            count = len(values) // 2 if typ == RATIONAL else len(values)
            if len(blob) <= 4:
                ifd += struct.pack(e + "HHI", tag, typ, count) + blob + b"\0" * (4 - len(blob))
            else:
                ifd += struct.pack(e + "HHII", tag, typ, count, extra_at + len(extra))
                extra += blob
        return ifd + struct.pack(e + "I", 0) + extra

    size = len(encode(layout(0)))
    head = (b"MM" if big else b"II") + struct.pack(e + "HI", 42, 8)
    return head + encode(layout(8 + size)) + b"".join(strips)


def gif(width, height, frames, palette):
    """GIF89a with a global palette of 256 colours; each frame's pixels sent as single codes
    (a clear code every 250), so no dictionary entry is ever used: valid LZW, no compression."""
    def lzw(pixels):
        clear, eoi, size = 256, 257, 9
        codes = []
        for i, p in enumerate(pixels):
            if i % 250 == 0:
                codes.append(clear)
            codes.append(p)
        codes.append(eoi)
        acc = nbits = 0
        out = bytearray()
        for c in codes:
            acc |= c << nbits
            nbits += size
            while nbits >= 8:
                out.append(acc & 255)
                acc >>= 8
                nbits -= 8
        if nbits:
            out.append(acc & 255)
        blocks = b"".join(bytes([len(out[i:i + 255])]) + bytes(out[i:i + 255]) for i in range(0, len(out), 255))
        return b"\x08" + blocks + b"\x00"

    out = b"GIF89a" + struct.pack("<HHBBB", width, height, 0xF7, 0, 0) + palette
    out += b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    for pixels in frames:
        out += b"\x21\xf9\x04\x04\x0a\x00\x00\x00"  # graphic control: 0.1 s, no transparency
        out += b"\x2c" + struct.pack("<HHHHB", 0, 0, width, height, 0) + lzw(pixels)
    return out + b"\x3b"


# --- baseline JPEG (grey), integer arithmetic only -------------------------------------------------

ZIGZAG = [0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13,
          6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45,
          38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63]
LUMA_Q = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
          14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
          49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]
DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
DC_VALS = list(range(12))
AC_BITS = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D]
AC_VALS = [
    0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
    0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xA1, 0x08, 0x23, 0x42, 0xB1, 0xC1, 0x15, 0x52, 0xD1, 0xF0,
    0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0A, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x25, 0x26, 0x27, 0x28,
    0x29, 0x2A, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
    0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
    0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
    0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7,
    0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3, 0xC4, 0xC5,
    0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA, 0xE1, 0xE2,
    0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8,
    0xF9, 0xFA]
# round(8192 · cos(kπ/16)), k = 0…8, written out so that no libm rounding enters the bytes.
COS16 = [8192, 8035, 7568, 6811, 5793, 4551, 3135, 1598, 0]


def cos_table():
    def c(m):  # 8192 · cos(mπ/16)
        m %= 32
        if m > 16:
            m = 32 - m
        return COS16[m] if m <= 8 else -COS16[16 - m]
    # 8192 · C(u) · cos((2x+1)uπ/16), C(0) = 1/√2 (5793/8192).
    return [[5793 if u == 0 else c((2 * x + 1) * u) for x in range(8)] for u in range(8)]


def huffman_codes(bits, vals):
    codes, code, k = {}, 0, 0
    for length in range(1, 17):
        for _ in range(bits[length - 1]):
            codes[vals[k]] = (code, length)
            code += 1
            k += 1
        code <<= 1
    return codes


def jpeg_grey(width, height, pixels, quality=90):
    scale = 5000 // quality if quality < 50 else 200 - 2 * quality
    q = [max(1, min(255, (v * scale + 50) // 100)) for v in LUMA_Q]
    T = cos_table()
    dc, ac = huffman_codes(DC_BITS, DC_VALS), huffman_codes(AC_BITS, AC_VALS)
    bits = []

    def put(code, length):
        bits.extend((code >> (length - 1 - i)) & 1 for i in range(length))

    def magnitude(v):
        n = abs(v).bit_length()
        return n, (v if v >= 0 else v + (1 << n) - 1)

    def div_round(a, b):
        return (a + b // 2) // b if a >= 0 else -((-a + b // 2) // b)

    prev = 0
    for by in range(0, height, 8):
        for bx in range(0, width, 8):
            f = [[pixels[min(by + y, height - 1) * width + min(bx + x, width - 1)] - 128 for x in range(8)]
                 for y in range(8)]
            coef = [0] * 64
            for v in range(8):
                rows = [sum(f[y][x] * T[v][y] for y in range(8)) for x in range(8)]
                for u in range(8):
                    s = sum(rows[x] * T[u][x] for x in range(8))  # 2^26 · Σ f cos cos · C(u)C(v)
                    coef[v * 8 + u] = div_round(s, 4 * 8192 * 8192 * q[v * 8 + u])
            zz = [coef[i] for i in ZIGZAG]
            n, m = magnitude(zz[0] - prev)
            prev = zz[0]
            put(*dc[n])
            if n:
                put(m, n)
            run = 0
            for k in range(1, 64):
                if zz[k] == 0:
                    run += 1
                    continue
                while run > 15:
                    put(*ac[0xF0])
                    run -= 16
                n, m = magnitude(zz[k])
                put(*ac[(run << 4) | n])
                put(m, n)
                run = 0
            if run:
                put(*ac[0x00])
    bits.extend([1] * ((-len(bits)) % 8))
    scan = bytearray()
    for i in range(0, len(bits), 8):
        byte = int("".join(map(str, bits[i:i + 8])), 2)
        scan.append(byte)
        if byte == 0xFF:
            scan.append(0)

    def segment(marker, body):
        return b"\xff" + marker + struct.pack(">H", len(body) + 2) + body

    return (b"\xff\xd8" + segment(b"\xe0", b"JFIF\0\x01\x01\x00\x00\x01\x00\x01\x00\x00")
            + segment(b"\xdb", b"\x00" + bytes(q[i] for i in ZIGZAG))
            + segment(b"\xc0", struct.pack(">BHHB", 8, height, width, 1) + b"\x01\x11\x00")
            + segment(b"\xc4", b"\x00" + bytes(DC_BITS) + bytes(DC_VALS))
            + segment(b"\xc4", b"\x10" + bytes(AC_BITS) + bytes(AC_VALS))
            + segment(b"\xda", b"\x01\x01\x00\x00\x3f\x00") + bytes(scan) + b"\xff\xd9")


def make_image():
    t = "image"
    INTRO[t] = (
        "One image file per seed, in the formats Qt reads (the harness writes `input`, without a "
        "suffix, so the format is recognised by content), loaded as grey and, up to 64 × 64, "
        "cut into 4 × 4 patches. The crops are of `tests/data/coins.png` (scikit-image sample "
        "data, public domain); every file is written by the small writers in make_seeds.py "
        "(the standard library only). PNG rows use the five filter types in turn. JPEG, TIFF and "
        "GIF are written in Python too rather than with ImageMagick, so that the bytes do not "
        "depend on its version; only the deflate streams of the PNG files come from zlib.")
    coins = read("coins.png")
    rows = png_decode_grey8(coins)
    src = "tests/data/coins.png (scikit-image sample data, public domain)"

    def crop(x0, y0, w, h):
        return [rows[y][x0:x0 + w] for y in range(y0, y0 + h)]

    c16 = crop(150, 40, 16, 12)
    c9 = crop(60, 60, 9, 9)
    flat16 = b"".join(c16)
    flat9 = b"".join(c9)
    seed(t, "crop_16x12_grey.png", png(16, 12, c16), "16 × 12 crop, 8-bit grey PNG", src + ", cropped")
    seed(t, "crop_9x9_grey.png", png(9, 9, c9), "9 × 9 crop, 8-bit grey PNG", src + ", cropped")
    seed(t, "crop_16x12_grey_interlaced.png", png(16, 12, c16, interlace=True),
         "the 16 × 12 crop, Adam7-interlaced", src + ", cropped")
    rgb12 = [[(c16[y][x], 255 - c16[y][x], (x * 16 + y * 8) & 255) for x in range(12)] for y in range(10)]
    seed(t, "colour_12x10_rgb.png", png(12, 10, [bytes(v for p in r for v in p) for r in rgb12], ctype=2, bpp=3),
         "12 × 10 colour (red = the crop, green = its negative, blue = a ramp), 8-bit RGB PNG", src + ", cropped and coloured")
    g16 = [b"".join(struct.pack(">H", (c16[y][x] * 257) ^ (x * y)) for x in range(8)) for y in range(8)]
    seed(t, "grey16_8x8.png", png(8, 8, g16, depth=16, bpp=2), "8 × 8, 16-bit grey PNG",
         src + ", cropped, 8 → 16 bits")
    ga = [bytes(v for x in range(6) for v in (c9[y][x], 255 - 40 * x)) for y in range(6)]
    seed(t, "grey_alpha_6x6.png", png(6, 6, ga, ctype=4, bpp=2), "6 × 6 grey with alpha", src + ", cropped")
    pal = b"".join(bytes([17 * i, 17 * i, 255 - 17 * i]) for i in range(16))
    idx4 = [bytes(((c9[y][2 * i] >> 4) << 4) | (c9[y][2 * i + 1] >> 4) for i in range(4)) + bytes([(c9[y][8] >> 4) << 4])
            for y in range(9)]
    seed(t, "palette4_9x9_trns.png",
         png(9, 9, idx4, depth=4, ctype=3, extra=png_chunk(b"PLTE", pal) + png_chunk(b"tRNS", bytes(range(0, 256, 32)))),
         "9 × 9, 4-bit palette of 16 colours with transparency (tRNS)", src + ", cropped, quantised")
    bw = [bytes(sum((1 << (7 - b)) for b in range(8) if 8 * i + b < 9 and c9[y][8 * i + b] > 128) for i in range(2))
          for y in range(9)]
    seed(t, "bilevel_9x9.png", png(9, 9, bw, depth=1), "9 × 9, 1-bit grey PNG", src + ", cropped, thresholded")
    seed(t, "one_pixel.png", png(1, 1, [b"\x80"]), "1 × 1 grey PNG (smaller than a patch)", "written for the fuzzers")
    seed(t, "crop_16x12.pgm", pnm(b"P5", 16, 12, 255, flat16), "the 16 × 12 crop, binary PGM (P5)", src + ", cropped")
    seed(t, "crop_9x9_ascii.pgm", pnm(b"P2", 9, 9, 255, flat9, b"coins.png, 9 x 9"),
         "the 9 × 9 crop, ASCII PGM (P2) with a comment", src + ", cropped")
    seed(t, "crop_8x8_16bit.pgm", pnm(b"P5", 8, 8, 65535, [c16[y][x] * 257 for y in range(8) for x in range(8)]),
         "8 × 8, binary PGM with maxval 65535", src + ", cropped")
    seed(t, "colour_12x10.ppm", pnm(b"P6", 12, 10, 255, [v for r in rgb12 for p in r for v in p]),
         "the colour crop, binary PPM (P6)", src + ", cropped and coloured")
    seed(t, "colour_4x3_ascii_maxval15.ppm", pnm(b"P3", 4, 3, 15, [(v >> 4) for r in rgb12[:3] for p in r[:4] for v in p]),
         "4 × 3 ASCII PPM (P3) with maxval 15", src + ", cropped and coloured")
    seed(t, "crop_9x9_grey8.bmp", bmp(9, 9, rows_grey=c9), "the 9 × 9 crop, 8-bit BMP with a grey palette, bottom-up rows padded to 4 bytes",
         src + ", cropped")
    seed(t, "colour_12x10_24bit_top_down.bmp", bmp(12, 10, rows_rgb=rgb12, top_down=True),
         "the colour crop, 24-bit BMP, top-down (negative height)", src + ", cropped and coloured")
    seed(t, "crop_16x12_grey_le.tiff", tiff(16, 12, flat16, 1), "the 16 × 12 crop, TIFF little-endian, grey, uncompressed",
         src + ", cropped")
    seed(t, "colour_12x10_rgb_be_packbits.tiff", tiff(12, 10, [v for r in rgb12 for p in r for v in p], 3, big=True, packbits=True),
         "the colour crop, TIFF big-endian, RGB, PackBits", src + ", cropped and coloured")
    grey_pal = b"".join(bytes([i, i, i]) for i in range(256))
    seed(t, "crop_16x12_two_frames.gif", gif(16, 12, [flat16, bytes(255 - v for v in flat16)], grey_pal),
         "the 16 × 12 crop, GIF89a with two frames (the second its negative), uncompressed LZW codes",
         src + ", cropped")
    jpg = jpeg_grey(16, 12, flat16)
    seed(t, "crop_16x12_grey.jpg", jpg, "the 16 × 12 crop, baseline grey JPEG, quality 90", src + ", cropped")
    seed(t, "bad_truncated.jpg", jpg[: len(jpg) * 2 // 3], "the JPEG cut inside its scan", "written for the fuzzers")
    seed(t, "bad_coins_first_100_bytes.png", coins[:100], "the first 100 bytes of coins.png",
         IMAGE_TEST + " brokenFiles (truncated)")
    good = bytearray(png(16, 12, c16))
    crc_at = good.index(b"IEND") - 8  # the last byte of IDAT's CRC
    good[crc_at] ^= 0x55
    seed(t, "bad_crc.png", bytes(good), "the 16 × 12 PNG with its IDAT CRC damaged", "written for the fuzzers")
    huge = bytearray(png(1, 1, [b"\x80"]))
    huge[16:24] = struct.pack(">II", 60000, 60000)
    crc = zlib.crc32(bytes(huge[12:29])) & 0xFFFFFFFF
    huge[29:33] = struct.pack(">I", crc)
    seed(t, "bad_huge_dimensions.png", bytes(huge), "a 1-pixel PNG whose IHDR says 60000 × 60000 (CRC fixed)",
         "written for the fuzzers")
    seed(t, "bad_not_an_image.png", b"not an image", "12 bytes of text", IMAGE_TEST + " brokenFiles (text)")
