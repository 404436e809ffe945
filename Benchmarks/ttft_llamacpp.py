#!/usr/bin/env python3
"""Time to first token and peak memory of llama.cpp (PyPI llama-cpp-python, through its C API) on
one GGUF file, measured as `loom bench` measures them: TTFT = one batch of P prompt tokens from an
empty context plus the first single-token decode; one warm-up run not counted. Run with the venv
python that Benchmarks/llamacpp-venv prints; Benchmarks/compare drives it.

Prints JSON {"ttft_ms": {"median", "min", "max"}, "peak_rss_mb", "baseline_rss_mb"}: peak RSS of
this process (ru_maxrss), and that of the interpreter with llama_cpp imported before the model is
loaded, so the reader can tell the Python overhead apart.
usage: ttft_llamacpp.py MODEL [--pp 512] [--reps 5] [--threads 2]
"""
import argparse, json, resource, statistics, time
from llamacpp_context import LlamaContext

ap = argparse.ArgumentParser()
ap.add_argument("model"); ap.add_argument("--pp", type=int, default=512)
ap.add_argument("--reps", type=int, default=5); ap.add_argument("--threads", type=int, default=2)
a = ap.parse_args()


def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


baseline = rss_mb()  # llama_cpp is imported (by llamacpp_context), the model not yet loaded
llama = LlamaContext(a.model, n_ctx=a.pp + 16, n_batch=a.pp, threads=a.threads)


def ttft_ms():
    llama.clear()
    prompt = [(i * 7919 + 13) % llama.vocab_size for i in range(a.pp)]
    t0 = time.perf_counter()
    llama.decode(prompt, 0)
    llama.decode([(a.pp * 31 + 5) % llama.vocab_size], a.pp)
    llama.synchronize()
    return (time.perf_counter() - t0) * 1000


ttft_ms()  # warm-up
runs = [ttft_ms() for _ in range(a.reps)]
print(json.dumps({"ttft_ms": {"median": statistics.median(runs), "min": min(runs), "max": max(runs)},
                  "peak_rss_mb": rss_mb(), "baseline_rss_mb": baseline}))
