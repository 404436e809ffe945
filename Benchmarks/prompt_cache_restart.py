#!/usr/bin/env python3
"""Time to first token of the first request after a restart, cold and with `--prompt-cache`.

usage: prompt_cache_restart.py LOOM MODEL [--threads 2] [--system-tokens 1500] [--rounds 1]

Per round, in a fresh cache directory: `loom serve --prompt-cache DIR` starts, one streaming request
(a shared system prompt of at most --system-tokens tokens, counted by `loom tokenize`, and a short
question; max_tokens 4, temperature 0) measures the cold TTFT, and the server is stopped with
SIGTERM (its drain flushes the cache). A second server on the same directory — a restart — answers
a request with the same system prompt and another question: the restored TTFT. TTFT runs from
sending the request to the first content chunk. Prints one JSON line per round:
{"system_tokens", "cold_ms", "restored_ms", "cold_cached", "restored_cached", "prompt_tokens",
"cache_files", "cache_bytes"}. Standard library only (with serving_load.py beside it).
"""
import argparse, json, os, shutil, signal, socket, subprocess, sys, tempfile, time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serving_load import Stream, filler  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def token_count(loom, model, text):
    out = subprocess.run([loom, "tokenize", "-m", model], input=text, capture_output=True, text=True, check=True).stdout
    return len(out.split())


def system_prompt(loom, model, tokens):
    """The longest prefix (in whole sentences) of serving_load's filler text within `tokens` tokens."""
    sentences = filler(tokens // 10).rsplit("\n\n", 1)[0].split(". ")
    lo, hi = 1, len(sentences)
    while lo < hi:  # the most sentences that fit
        mid = (lo + hi + 1) // 2
        if token_count(loom, model, ". ".join(sentences[:mid]) + ".") <= tokens:
            lo = mid
        else:
            hi = mid - 1
    text = ". ".join(sentences[:lo]) + "."
    return text, token_count(loom, model, text)


def start(cmd, port):
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"prompt_cache_restart: loom serve exited ({proc.returncode}) before it was healthy")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
                if r.status == 200:
                    return proc
        except OSError:
            pass
        time.sleep(0.1)
    proc.kill()
    sys.exit("prompt_cache_restart: loom serve not healthy after 300 s")


def stop(proc):
    proc.send_signal(signal.SIGTERM)  # a drain, which flushes the prompt cache
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def first_request(cmd_for, system, question):
    port = free_port()
    proc = start(cmd_for(port), port)
    try:
        s = Stream(f"http://127.0.0.1:{port}", "bench", "", 4)
        s.body = json.dumps({"model": "bench", "messages": [{"role": "system", "content": system},
                                                            {"role": "user", "content": question}],
                             "max_tokens": 4, "temperature": 0, "stream": True,
                             "stream_options": {"include_usage": True}}).encode()
        s.run()
        if s.error or s.ttft is None:
            sys.exit(f"prompt_cache_restart: request failed: {s.error or 'no content'}")
        usage = s.usage or {}
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
        return s.ttft * 1000, cached, usage.get("prompt_tokens")
    finally:
        stop(proc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("loom")
    ap.add_argument("model")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--system-tokens", type=int, default=1500)
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args()
    system, n = system_prompt(a.loom, a.model, a.system_tokens)
    for _ in range(a.rounds):
        cache = tempfile.mkdtemp(prefix="loom-prompt-cache-")
        try:
            def cmd_for(port):
                return [a.loom, "serve", "-m", a.model, "--alias", "bench", "-c", "2048", "-t", str(a.threads),
                        "--port", str(port), "--quiet", "--prompt-cache", cache]
            cold, cold_cached, _ = first_request(cmd_for, system, "In one word: which year comes first?")
            restored, restored_cached, prompt = first_request(cmd_for, system, "In one word: who came most often?")
            files = [f for f in os.listdir(cache) if f.endswith(".loomkv")]
            print(json.dumps({"system_tokens": n, "cold_ms": round(cold, 2), "restored_ms": round(restored, 2),
                              "cold_cached": cold_cached, "restored_cached": restored_cached, "prompt_tokens": prompt,
                              "cache_files": len(files),
                              "cache_bytes": sum(os.path.getsize(os.path.join(cache, f)) for f in files)}), flush=True)
        finally:
            shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
