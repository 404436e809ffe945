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
import llama_cpp as L

ap = argparse.ArgumentParser()
ap.add_argument("model"); ap.add_argument("--pp", type=int, default=512)
ap.add_argument("--reps", type=int, default=5); ap.add_argument("--threads", type=int, default=2)
a = ap.parse_args()


def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


baseline = rss_mb()
L.llama_backend_init()
model = L.llama_model_load_from_file(a.model.encode(), L.llama_model_default_params())
assert model, "load failed"
cp = L.llama_context_default_params()
cp.n_ctx = a.pp + 16; cp.n_batch = a.pp; cp.n_ubatch = a.pp
cp.n_threads = a.threads; cp.n_threads_batch = a.threads
ctx = L.llama_init_from_model(model, cp)
vocab_size = L.llama_vocab_n_tokens(L.llama_model_get_vocab(model))
memory = L.llama_get_memory(ctx)
batch = L.llama_batch_init(a.pp, 0, 1)


def decode(tokens, start):
    batch.n_tokens = len(tokens)
    for i, t in enumerate(tokens):
        batch.token[i] = t; batch.pos[i] = start + i; batch.n_seq_id[i] = 1; batch.seq_id[i][0] = 0
        batch.logits[i] = 1 if i == len(tokens) - 1 else 0
    assert L.llama_decode(ctx, batch) == 0


def ttft_ms():
    L.llama_memory_clear(memory, True)
    prompt = [(i * 7919 + 13) % vocab_size for i in range(a.pp)]
    t0 = time.perf_counter()
    decode(prompt, 0)
    decode([(a.pp * 31 + 5) % vocab_size], a.pp)
    L.llama_synchronize(ctx)
    return (time.perf_counter() - t0) * 1000


ttft_ms()  # warm-up
runs = [ttft_ms() for _ in range(a.reps)]
print(json.dumps({"ttft_ms": {"median": statistics.median(runs), "min": min(runs), "max": max(runs)},
                  "peak_rss_mb": rss_mb(), "baseline_rss_mb": baseline}))
