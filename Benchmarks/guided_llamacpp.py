#!/usr/bin/env python3
"""Guided vs unconstrained decoding speed of llama.cpp (PyPI llama-cpp-python) on one GGUF file:
greedy completions of the same prompt with and without a grammar made from a JSON Schema by
llama-cpp-python's own converter, alternating. Run with the venv python that
Benchmarks/llamacpp-venv prints; Benchmarks/compare drives it.

Prints JSON {"guided": {"tokens", "tok_s": {"median", "min", "max"}}, "unconstrained": {...}}.
Rates are completion tokens over the wall time of the completion, the prompt being evaluated
once beforehand (llama-cpp-python reuses the matching prefix of its previous input).
usage: guided_llamacpp.py MODEL SCHEMA [--tokens 128] [--reps 5] [--threads 2]
"""
import argparse, json, statistics, time
import llama_cpp

ap = argparse.ArgumentParser()
ap.add_argument("model"); ap.add_argument("schema")
ap.add_argument("--tokens", type=int, default=128); ap.add_argument("--reps", type=int, default=5)
ap.add_argument("--threads", type=int, default=2)
a = ap.parse_args()

llm = llama_cpp.Llama(model_path=a.model, n_ctx=1024, n_threads=a.threads, n_threads_batch=a.threads,
                      verbose=False, seed=0)
with open(a.schema) as f:
    schema_text = f.read()
grammar = llama_cpp.LlamaGrammar.from_json_schema(schema_text, verbose=False)
prompt = ("<|im_start|>user\nDescribe a user of a web application as JSON.<|im_end|>\n"
          "<|im_start|>assistant\n")


def rate(use_grammar):
    kwargs = {"grammar": grammar} if use_grammar else {}
    t0 = time.perf_counter()
    out = llm.create_completion(prompt, max_tokens=a.tokens, temperature=0.0, top_k=1, **kwargs)
    seconds = time.perf_counter() - t0
    n = out["usage"]["completion_tokens"]
    return n, n / seconds


rate(False)  # warm-up: evaluates the prompt once, later runs reuse it
runs = {"guided": [], "unconstrained": []}
counts = {"guided": 0, "unconstrained": 0}
for _ in range(a.reps):
    for key in ("unconstrained", "guided"):
        n, r = rate(key == "guided")
        runs[key].append(r)
        counts[key] = n
summary = lambda xs: {"median": statistics.median(xs), "min": min(xs), "max": max(xs)}
print(json.dumps({k: {"tokens": counts[k], "tok_s": summary(v)} for k, v in runs.items()}))
