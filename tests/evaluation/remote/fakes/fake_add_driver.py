#!/usr/bin/env python3
"""FAKE test driver (tests only): what the generated aclnn driver does for add_custom, on the CPU.

Reads the manifest (input/output lines), computes z = x + y in the case's dtype, writes z's .bin.
Records the device it was given (ASCEND_RT_VISIBLE_DEVICES) in device.txt.
"""

import os
import struct
import sys

CODES = {"float16": ("e", 2), "float32": ("f", 4), "int32": ("i", 4)}


def load(dtype, path):
    with open(path, "rb") as f:
        data = f.read()
    if dtype == "bfloat16":
        return [
            struct.unpack("<f", struct.pack("<I", v << 16))[0]
            for v in struct.unpack(f"<{len(data) // 2}H", data)
        ]
    code, size = CODES[dtype]
    return list(struct.unpack(f"<{len(data) // size}{code}", data))


def store(dtype, path, values):
    if dtype == "bfloat16":
        out = []
        for v in values:
            bits = struct.unpack("<I", struct.pack("<f", v))[0]
            out.append(((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF)
        data = struct.pack(f"<{len(out)}H", *out)
    else:
        data = struct.pack(f"<{len(values)}{CODES[dtype][0]}", *values)
    with open(path, "wb") as f:
        f.write(data)


ins, outs = {}, {}
with open(sys.argv[1], encoding="utf-8") as f:
    manifest = f.read().splitlines()
for line in manifest:
    parts = line.rstrip("\n").split(" ")
    if parts[0] in ("input", "output"):
        nd = int(parts[3])
        path = " ".join(parts[4 + nd :])
        (ins if parts[0] == "input" else outs)[parts[1]] = (parts[2], path)
x, y = (load(*ins[n]) for n in ("x", "y"))
for dtype, path in outs.values():
    store(dtype, path, [x[i] + y[i] for i in range(len(x))])
with open("device.txt", "w") as f:
    f.write(os.environ.get("ASCEND_RT_VISIBLE_DEVICES", ""))
print(f"[fake driver] {len(x)} elements on device {os.environ.get('ASCEND_RT_VISIBLE_DEVICES')}")
