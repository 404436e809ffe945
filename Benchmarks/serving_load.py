#!/usr/bin/env python3
"""Load for an OpenAI-compatible chat server: one client, so Loom's server and llama.cpp's are driven
identically (Benchmarks/compare runs it against both). Standard library only.

usage: serving_load.py BASE_URL [--concurrency 1,2,4,8,16] [--max-tokens 96] [--no-warmup]
       serving_load.py BASE_URL --late-arrival [--running 7] [--late-max-tokens 256]
                       [--late-after 16] [--filler-sentences 34]
BASE_URL is the server's root (http://127.0.0.1:8080); requests go to /v1/chat/completions with the
first model /v1/models lists.

Concurrency: for each N, N streaming requests start together (a barrier), each with its own prompt,
temperature 0, max_tokens, stream_options.include_usage. Every content chunk's arrival time is kept.
Prints one JSON line per N: {"n", "tokens", "wall_s", "agg_tok_s", "itl_ms": {"p50", "p99"},
"ttft_ms": {"p50", "p99"}, "gaps"}: tokens are the servers' usage completion_tokens (chunks when a
server sends no usage), agg_tok_s is their sum over the wall time from the common start to the last
stream's end, ITL percentiles pool the gaps between consecutive content chunks of all streams, and
TTFT runs from a stream's request to its first content chunk. No `ignore_eos`: `loom serve`
rejects fields it does not know, so a stream may end early at end of sequence; tokens say so.

Late arrival: `--running` streams with long answers; once each has produced `--late-after` content
chunks, one more request arrives whose prompt is ~1,000 tokens of deterministic filler text and an
instruction to summarize it. Prints one JSON line: the running streams' ITL before the arrival
(gaps from the moment all of them stream until the submission: undisturbed) and during the newcomer's
prefill (gaps overlapping its submission → first token), the newcomer's TTFT and prompt tokens.
"""
import argparse, json, sys, threading, time, urllib.request

# Distinct prompts that ask for long answers, so streams rarely stop before max_tokens.
PROMPTS = [
    "Tell me a long story about a dragon who learns to cook.",
    "Explain in detail how a steam engine works.",
    "Describe a day in the life of a medieval blacksmith.",
    "Write a long letter to a friend about your summer travels.",
    "Explain the history of the printing press in detail.",
    "Describe how to grow tomatoes in a garden, step by step.",
    "Tell me a long story about a robot lost in a forest.",
    "Explain how airplanes fly, with many details.",
    "Describe the water cycle in detail, from ocean to cloud to river.",
    "Write a long story about two children who find a hidden door in their school.",
    "Explain step by step how bread is baked, from flour to loaf.",
    "Describe a journey by train across a large country, station by station.",
    "Explain in detail how the human heart pumps blood through the body.",
    "Tell me a long story about a lighthouse keeper during a storm.",
    "Describe how a city's public library is organised and what happens there each day.",
    "Explain in detail how bees make honey and run their hive.",
]
WARMUP_PROMPT = "Say hello."

# Filler for the late arrival's long prompt: deterministic, varied enough that no tokenizer collapses it.
_ADJ = ["quiet", "old", "narrow", "bright", "heavy", "distant", "green", "broken", "busy", "cold", "warm", "tall"]
_NOUN = ["bridge", "market", "harbour", "mill", "garden", "tower", "road", "school", "farm", "station", "river", "hall"]
_VERB = ["repaired", "visited", "painted", "measured", "closed", "opened", "cleaned", "described", "sold", "mapped"]
_WHO = ["the mayor", "a carpenter", "two students", "the baker", "a traveller", "the council", "a farmer", "the clerk"]


def filler(sentences):
    out = []
    for i in range(sentences):
        out.append(f"In year {1800 + 3 * i}, {_WHO[i % len(_WHO)]} {_VERB[(i * 7) % len(_VERB)]} the "
                   f"{_ADJ[(i * 5) % len(_ADJ)]} {_NOUN[(i * 11) % len(_NOUN)]} near the "
                   f"{_NOUN[(i * 3 + 1) % len(_NOUN)]}, and {(i * 37) % 90 + 10} people came to see it.")
    return " ".join(out) + "\n\nSummarize the text above in a few sentences."


class Stream:
    """One streaming request; `times` holds the arrival time of every non-empty content chunk."""

    def __init__(self, base, model, prompt, max_tokens):
        self.body = json.dumps({"model": model, "messages": [{"role": "user", "content": prompt}],
                                "max_tokens": max_tokens, "temperature": 0, "stream": True,
                                "stream_options": {"include_usage": True}}).encode()
        self.url = base + "/v1/chat/completions"
        self.start = None
        self.end = None
        self.times = []
        self.usage = None
        self.error = None
        self.progress = None  # a threading.Condition notified per chunk, when someone waits on progress

    def run(self, barrier=None):
        try:
            req = urllib.request.Request(self.url, data=self.body, headers={"Content-Type": "application/json"})
            if barrier is not None:
                barrier.wait()
            self.start = time.perf_counter()
            with urllib.request.urlopen(req, timeout=900) as r:
                for raw in r:
                    line = raw.strip()
                    if not line.startswith(b"data:"):
                        continue
                    data = line[5:].strip()
                    if data == b"[DONE]":
                        break
                    now = time.perf_counter()
                    ev = json.loads(data)
                    if ev.get("usage"):
                        self.usage = ev["usage"]
                    if any(ch.get("delta", {}).get("content") for ch in ev.get("choices") or []):
                        self.times.append(now)
                        if self.progress is not None:
                            with self.progress:
                                self.progress.notify_all()
        except Exception as e:  # reported, and the measurement refuses to summarize a failed stream
            self.error = f"{type(e).__name__}: {e}"
        finally:
            self.end = time.perf_counter()
            if self.progress is not None:
                with self.progress:
                    self.progress.notify_all()

    @property
    def tokens(self):
        return self.usage["completion_tokens"] if self.usage else len(self.times)

    @property
    def ttft(self):
        return self.times[0] - self.start if self.times else None

    def gaps(self):
        """(start, end) of each gap between consecutive content chunks."""
        return list(zip(self.times, self.times[1:]))


def percentile(xs, q):
    """Linear interpolation between closest ranks (numpy's default)."""
    if not xs:
        return None
    s = sorted(xs)
    k = (len(s) - 1) * q / 100
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def pcts_ms(xs):
    p50, p99 = percentile(xs, 50), percentile(xs, 99)
    return {"p50": None if p50 is None else round(p50 * 1000, 2), "p99": None if p99 is None else round(p99 * 1000, 2)}


def model_id(base):
    with urllib.request.urlopen(base + "/v1/models", timeout=60) as r:
        return json.load(r)["data"][0]["id"]


def fail_if_errors(streams, what):
    bad = [s.error for s in streams if s.error]
    if bad:
        sys.exit(f"serving_load: {len(bad)} of {len(streams)} streams failed in {what}: {bad[0]}")


def concurrency(base, model, n, max_tokens):
    streams = [Stream(base, model, PROMPTS[i % len(PROMPTS)], max_tokens) for i in range(n)]
    barrier = threading.Barrier(n)
    threads = [threading.Thread(target=s.run, args=(barrier,)) for s in streams]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    fail_if_errors(streams, f"n={n}")
    t0 = min(s.start for s in streams)
    wall = max(s.end for s in streams) - t0
    tokens = sum(s.tokens for s in streams)
    gaps = [b - a for s in streams for a, b in s.gaps()]
    return {"n": n, "tokens": tokens, "wall_s": round(wall, 3), "agg_tok_s": round(tokens / wall, 2),
            "itl_ms": pcts_ms(gaps), "ttft_ms": pcts_ms([s.ttft for s in streams if s.ttft is not None]),
            "gaps": len(gaps)}


def late_arrival(base, model, running, max_tokens, after, sentences):
    progress = threading.Condition()
    streams = [Stream(base, model, PROMPTS[i % len(PROMPTS)], max_tokens) for i in range(running)]
    for s in streams:
        s.progress = progress
    barrier = threading.Barrier(running)
    threads = [threading.Thread(target=s.run, args=(barrier,)) for s in streams]
    for t in threads:
        t.start()
    # Bounded: every running stream either reaches `after` chunks or ends (its thread notifies on exit).
    with progress:
        ok = progress.wait_for(lambda: all(len(s.times) >= after or s.end is not None for s in streams), timeout=900)
    if not ok:
        sys.exit("serving_load: the running streams did not reach the arrival point within 900 s")
    late = Stream(base, model, filler(sentences), 16)
    late_thread = threading.Thread(target=late.run)
    late_thread.start()
    for t in threads + [late_thread]:
        t.join()
    fail_if_errors(streams + [late], "late arrival")
    submitted = late.start
    first = late.times[0] if late.times else late.end
    streaming = max(s.times[0] for s in streams if s.times)
    before = [b - a for s in streams for a, b in s.gaps() if a >= streaming and b <= submitted]
    during = [b - a for s in streams for a, b in s.gaps() if b > submitted and a < first]
    still = sum(1 for s in streams if s.end > first)
    return {"scenario": "late_arrival", "running": running, "running_at_first_token": still,
            "itl_before_ms": pcts_ms(before), "itl_during_ms": pcts_ms(during),
            "gaps_before": len(before), "gaps_during": len(during),
            "late_ttft_ms": round((first - submitted) * 1000, 2),
            "late_prompt_tokens": late.usage["prompt_tokens"] if late.usage else None,
            "running_tokens": sum(s.tokens for s in streams)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base")
    ap.add_argument("--concurrency", default="1,2,4,8,16")
    ap.add_argument("--max-tokens", type=int, default=96)
    ap.add_argument("--no-warmup", action="store_true", help="skip the short request sent before measuring")
    ap.add_argument("--late-arrival", action="store_true")
    ap.add_argument("--running", type=int, default=7)
    ap.add_argument("--late-max-tokens", type=int, default=256)
    ap.add_argument("--late-after", type=int, default=16)
    ap.add_argument("--filler-sentences", type=int, default=34, help="about 28.5 tokens each with SmolLM2's tokenizer")
    a = ap.parse_args()
    base = a.base.rstrip("/")
    if base.endswith("/v1"):
        base = base[:-3]
    model = model_id(base)
    if not a.no_warmup:
        w = Stream(base, model, WARMUP_PROMPT, 8)
        w.run()
        fail_if_errors([w], "warm-up")
    if a.late_arrival:
        print(json.dumps(late_arrival(base, model, a.running, a.late_max_tokens, a.late_after, a.filler_sentences)),
              flush=True)
        return
    for n in (int(x) for x in a.concurrency.split(",")):
        print(json.dumps(concurrency(base, model, n, a.max_tokens)), flush=True)


if __name__ == "__main__":
    main()
