#!/usr/bin/env python3
"""Writes the dequantization fixtures under quant/ (run once; the outputs are checked in).

For every block format Loom reads, `quant/<TYPE>.blocks` holds raw ggml blocks and
`quant/<TYPE>.f32` the little-endian float32 values the `gguf` package (llama.cpp's own Python
reference, gguf-py) dequantizes them to. The blocks are random bytes with their f16/f32 scale
fields replaced by finite random scales, so every bit pattern of the packed fields occurs;
Q4_0…Q8_0 and F16/BF16 additionally get blocks made by gguf's own quantizer from random
floats. Q8_1 and Q8_K have no dequantizer in gguf-py; their expected values come from the
ggml formula x = d*q written out below in numpy.

It also writes `quant/synth_tensors.json`: for one tensor of each type in the synthetic models
under ../shared/models/fixtures (llama.cpp's own quantizer output), the float64 sum and sum of
squares of gguf-py's dequantization and 96 sampled values (EngineTests reads the GGUF files).

Usage: /work/main/.venv/bin/python Tests/Fixtures/make_quant_fixtures.py
"""
import glob
import json
import os

import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import quants
from gguf.constants import GGML_QUANT_SIZES

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "quant")
rng = np.random.default_rng(20261130)


def f16_bytes(values):
    return np.asarray(values, dtype=np.float16).view(np.uint8)


# (type, f16 fields as (byte offset, magnitude, signed)), offsets within one block.
SCALE_FIELDS = {
    T.Q4_0: [(0, 0.05, True)],
    T.Q4_1: [(0, 0.05, False), (2, 0.5, True)],
    T.Q5_0: [(0, 0.05, True)],
    T.Q5_1: [(0, 0.05, False), (2, 0.5, True)],
    T.Q8_0: [(0, 0.01, True)],
    T.Q8_1: [(0, 0.01, True), (2, 1.0, True)],
    T.Q2_K: [(80, 0.05, False), (82, 0.05, False)],
    T.Q3_K: [(108, 0.05, True)],
    T.Q4_K: [(0, 0.05, False), (2, 0.05, False)],
    T.Q5_K: [(0, 0.05, False), (2, 0.05, False)],
    T.Q6_K: [(208, 0.05, True)],
}


def block_size(qtype):
    # gguf-py still lists Q8_1 with the old f32 d/s layout (40 bytes); ggml-common.h has used
    # two f16 fields (36 bytes) since ggml-half, and that is what Loom reads.
    if qtype == T.Q8_1:
        return 32, 36
    return GGML_QUANT_SIZES[qtype]


def random_blocks(qtype, n_blocks):
    block_elems, block_bytes = block_size(qtype)
    raw = rng.integers(0, 256, size=(n_blocks, block_bytes), dtype=np.uint8)
    if qtype == T.Q8_K:
        d = rng.uniform(0.001, 0.02, size=n_blocks).astype(np.float32)
        raw[:, 0:4] = d.view(np.uint8).reshape(n_blocks, 4)
        return raw
    for off, mag, signed in SCALE_FIELDS[qtype]:
        lo = -mag if signed else 0.0
        vals = rng.uniform(lo, mag, size=n_blocks)
        raw[:, off:off + 2] = f16_bytes(vals).reshape(n_blocks, 2)
    return raw


def expected(qtype, raw):
    if qtype == T.Q8_1:
        d = raw[:, 0:2].copy().view(np.float16).astype(np.float32)
        q = raw[:, 4:36].view(np.int8).astype(np.float32)
        return (d * q).reshape(-1)
    if qtype == T.Q8_K:
        d = raw[:, 0:4].copy().view(np.float32)
        q = raw[:, 4:260].view(np.int8).astype(np.float32)
        return (d * q).reshape(-1)
    return quants.dequantize(raw.reshape(-1), qtype).astype(np.float32).reshape(-1)


def write(name, raw, values):
    with open(os.path.join(OUT, name + ".blocks"), "wb") as f:
        f.write(raw.tobytes())
    with open(os.path.join(OUT, name + ".f32"), "wb") as f:
        f.write(np.asarray(values, dtype="<f4").tobytes())


def main():
    os.makedirs(OUT, exist_ok=True)
    # 1024 elements per type: 32 legacy blocks or 4 K-quant super-blocks.
    for qtype in [T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0, T.Q8_1,
                  T.Q2_K, T.Q3_K, T.Q4_K, T.Q5_K, T.Q6_K, T.Q8_K]:
        block_elems, _ = block_size(qtype)
        raw = random_blocks(qtype, 1024 // block_elems)
        if qtype in (T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0):
            # Half the row from gguf's quantizer, so real quantizer output is covered too.
            x = rng.standard_normal(512).astype(np.float32)
            q = quants.quantize(x, qtype).reshape(-1, raw.shape[1])
            raw = np.concatenate([q, raw[: raw.shape[0] - q.shape[0]]])
        write(qtype.name, raw, expected(qtype, raw))
    # Float formats: random values (plus specials) through gguf's own converters.
    x = np.concatenate([rng.standard_normal(1016).astype(np.float32) * 4,
                        np.array([0.0, -0.0, 1e-6, -6.1e-5, 65504.0, 3e-8, 1.0, -2.5], dtype=np.float32)])
    f16 = quants.quantize(x, T.F16)
    write("F16", f16.view(np.uint8).reshape(-1, 2), quants.dequantize(f16, T.F16))
    bf16 = quants.quantize(x, T.BF16)
    write("BF16", bf16.view(np.uint8).reshape(-1, 2), quants.dequantize(bf16, T.BF16))
    write("F32", x.view(np.uint8).reshape(-1, 4), x)
    synth_tensors()
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"wrote {len(os.listdir(OUT))} files, {total} bytes, to {OUT}")


def synth_tensors():
    from gguf import GGUFReader
    shared = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared"))
    entries, seen = [], set()
    for path in sorted(glob.glob(os.path.join(shared, "models/fixtures/synth-llama-*.gguf"))):
        for t in GGUFReader(path).tensors:
            name = t.tensor_type.name
            if name in seen or len(t.shape) != 2:
                continue
            seen.add(name)
            values = quants.dequantize(t.data, t.tensor_type).astype(np.float32).reshape(-1)
            n = values.size
            idx = sorted(set(list(range(32)) + [int(i) for i in np.linspace(32, n - 1, 64)]))
            entries.append({
                "file": os.path.basename(path), "tensor": t.name, "type": name, "elements": int(n),
                "sum": float(np.sum(values, dtype=np.float64)),
                "sum_squares": float(np.sum(values.astype(np.float64) ** 2)),
                "samples": [[i, float(values[i])] for i in idx],
            })
    with open(os.path.join(OUT, "synth_tensors.json"), "w") as f:
        json.dump(entries, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
