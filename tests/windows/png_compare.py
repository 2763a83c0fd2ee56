"""Checks a screenshot against a reference of the same view (standard library only).

usage: png_compare.py SHOT.png REFERENCE.png WIDTH HEIGHT
Exit 0 and one line of figures when SHOT is a WIDTHxHEIGHT PNG that is drawn
(at least 16 colours, at most 90 % of it one colour) and close to REFERENCE:
compared in 16x16-pixel blocks by brightness, mean and spread, at least 85 % of
the blocks within 24 levels on both. Fonts render differently across platforms;
the layout (tracks, bars, panels) must not. Calibration, 1280x800, Wine against
Linux: the same view 92 % alike; the timeline against the flamegraph or query
view 71 % and 68 %.
"""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError(f"{path}: not 8-bit RGB/RGBA, non-interlaced")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        base = y * (stride + 1)
        kind, line = raw[base], bytearray(raw[base + 1:base + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def pixels(rows, channels):
    for line in rows:
        for i in range(0, len(line), channels):
            yield line[i:i + 3]


def block_stats(width, height, channels, rows, size=16):
    """(mean, standard deviation) of brightness per size x size block."""
    stats = []
    for by in range(0, height - size + 1, size):
        for bx in range(0, width - size + 1, size):
            values = []
            for y in range(by, by + size):
                line = rows[y]
                for x in range(bx, bx + size):
                    i = x * channels
                    values.append((line[i] + line[i + 1] + line[i + 2]) / 3)
            mean = sum(values) / len(values)
            spread = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
            stats.append((mean, spread))
    return stats


def main():
    shot, ref, want_w, want_h = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    w, h, ch, rows = read_png(shot)
    if (w, h) != (want_w, want_h):
        print(f"{w}x{h}, not {want_w}x{want_h}")
        return 1
    counts = {}
    for p in pixels(rows, ch):
        counts[p] = counts.get(p, 0) + 1
    top = max(counts.values()) / (w * h)
    if len(counts) < 16 or top > 0.9:
        print(f"not drawn: {len(counts)} colours, {top:.0%} one colour")
        return 1
    rw, rh, rch, rrows = read_png(ref)
    if (rw, rh) != (w, h):
        print(f"reference is {rw}x{rh}")
        return 1
    a, b = block_stats(w, h, ch, rows), block_stats(rw, rh, rch, rrows)
    close = sum(1 for x, y in zip(a, b)
                if abs(x[0] - y[0]) <= 24 and abs(x[1] - y[1]) <= 24) / len(a)
    if close < 0.85:
        print(f"unlike the Linux build's: {close:.0%} of 16x16 blocks alike (want 85 %)")
        return 1
    print(f"{len(counts)} colours, {close:.0%} of 16x16 blocks like the Linux build's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
