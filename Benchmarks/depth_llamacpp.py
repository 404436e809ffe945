#!/usr/bin/env python3
"""pp and tg of llama.cpp (PyPI llama-cpp-python, through its C API) with D tokens already in the
KV cache, measured as `loom bench --depth D` measures them (llama-bench's `-d`): the depth is
evaluated first in batches of P tokens, untimed; then pp = one batch of P prompt tokens, timed; the
cache is filled again and tg = G single-token decodes, timed. Token ids follow `loom bench`'s
sequences (the depth's own, then pp's and tg's). One warm-up repetition is not counted. Run with
the venv python that Benchmarks/llamacpp-venv prints; Benchmarks/compare drives it.

Prints JSON {"depth", "flash_attn", "pp": {"median", "min", "max"}, "tg": {...}} in tokens per second.
usage: depth_llamacpp.py MODEL --depth D [--pp 512] [--tg 128] [--reps 5] [--threads 2] [--flash-attn auto|on|off]
  --flash-attn  llama.cpp's flash attention setting (default auto: llama.cpp's own default)
"""
import argparse, json, statistics, time
import llama_cpp as L
from llamacpp_context import LlamaContext

ap = argparse.ArgumentParser()
ap.add_argument("model"); ap.add_argument("--depth", type=int, required=True)
ap.add_argument("--pp", type=int, default=512); ap.add_argument("--tg", type=int, default=128)
ap.add_argument("--reps", type=int, default=5); ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--flash-attn", choices=["auto", "on", "off"], default="auto")
a = ap.parse_args()
FLASH = {"auto": L.LLAMA_FLASH_ATTN_TYPE_AUTO, "on": L.LLAMA_FLASH_ATTN_TYPE_ENABLED,
         "off": L.LLAMA_FLASH_ATTN_TYPE_DISABLED}
llama = LlamaContext(a.model, n_ctx=a.depth + max(a.pp, a.tg) + 16, n_batch=a.pp, threads=a.threads,
                     flash_attn=FLASH[a.flash_attn])


def fill():
    """An empty cache, then the depth's tokens in pp-sized batches."""
    llama.clear()
    filler = [(i * 4099 + 7) % llama.vocab_size for i in range(a.depth)]
    for start in range(0, a.depth, a.pp):
        llama.decode(filler[start:start + a.pp], start)
    llama.synchronize()


def once():
    fill()
    prompt = [(i * 7919 + 13) % llama.vocab_size for i in range(a.pp)]
    t0 = time.perf_counter()
    llama.decode(prompt, a.depth)
    llama.synchronize()
    pp = a.pp / (time.perf_counter() - t0)
    fill()
    t0 = time.perf_counter()
    for j in range(a.tg):
        llama.decode([(j * 31 + 5) % llama.vocab_size], a.depth + j)
    llama.synchronize()
    return pp, a.tg / (time.perf_counter() - t0)


once()  # warm-up
runs = [once() for _ in range(a.reps)]
stats = lambda xs: {"median": statistics.median(xs), "min": min(xs), "max": max(xs)}
print(json.dumps({"depth": a.depth, "flash_attn": a.flash_attn, "pp": stats([r[0] for r in runs]), "tg": stats([r[1] for r in runs])}))
