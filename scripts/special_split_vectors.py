#!/usr/bin/env python3
"""Generates Tests/EngineTests/TokenizerSpecialSplitVectors.swift: how llama.cpp's
`tokenizer_st_partition` splits random texts full of special-token texts, for several shared
vocabularies, with special parsing on and off.

Loom finds all occurrences in one pass and accepts them token by token; llama.cpp rescans a
linked list of fragments once per special token. This script is a direct, slow model of the
latter (longest token text first; for each, cut every raw fragment at each leftmost occurrence,
applying lstrip/rstrip), so the test pins the two formulations together.

usage: /work/main/.venv/bin/python scripts/special_split_vectors.py   (needs the gguf package)
"""
import json, os, random

import gguf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
OUT = os.path.join(ROOT, "Tests", "EngineTests", "TokenizerSpecialSplitVectors.swift")
VOCABS = ["phi-3", "llama-spm", "llama-bpe", "qwen2", "deepseek-llm", "starcoder"]

CONTROL, USER, UNKNOWN = 3, 4, 2
EOG_TEXTS = {"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
             "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
             "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
             "<｜end▁of▁sentence｜>", "[e~["}

def load(name):
    r = gguf.GGUFReader(os.path.join(SHARED, "vocab", f"ggml-vocab-{name}.gguf"))
    f = r.fields
    toks = [bytes(f["tokenizer.ggml.tokens"].parts[i]).decode() for i in f["tokenizer.ggml.tokens"].data]
    types = [int(f["tokenizer.ggml.token_type"].parts[i][0]) for i in f["tokenizer.ggml.token_type"].data]
    model_name = bytes(f["general.name"].parts[-1]).decode().lower() if "general.name" in f else ""
    control = {i for i, t in enumerate(types) if t == CONTROL}
    unknown = {i for i, t in enumerate(types) if t == UNKNOWN}
    user = {i for i, t in enumerate(types) if t == USER}
    by_text = {t: i for i, t in enumerate(toks)}  # last wins
    for text in EOG_TEXTS:
        if text in by_text:
            control.add(by_text[text])
    special = sorted(control | user | unknown, key=lambda i: (-len(toks[i].encode()), i))
    rstrip, lstrip = set(), set()
    if "phi-3" in model_name or "phi3" in model_name:
        rstrip = set(special) | ({by_text["</s>"]} if "</s>" in by_text else set())
        for t in ("<unk>", "<s>", "<|endoftext|>"):
            rstrip.discard(by_text.get(t))
    return toks, control, unknown, special, rstrip, lstrip

def partition(text, toks, control, unknown, special, rstrip, lstrip, parse_special):
    raw = text.encode()
    frags = [("raw", 0, len(raw))]
    for sid in special:
        if not parse_special and (sid in control or sid in unknown):
            continue
        pat = toks[sid].encode()
        if not pat:
            continue
        out = []
        for frag in frags:
            if frag[0] != "raw":
                out.append(frag); continue
            base, length = frag[1], frag[2]
            while True:
                m = raw.find(pat, base, base + length)
                if m < 0:
                    out.append(("raw", base, length)); break
                left_len = m - base
                if sid in lstrip:
                    while left_len > 0 and raw[base + left_len - 1] in b" \t\n\v\f\r":
                        left_len -= 1
                if left_len > 0:
                    out.append(("raw", base, left_len))
                out.append(("tok", sid))
                right = m + len(pat)
                right_len = base + length - right
                if sid in rstrip:
                    while right_len > 0 and raw[right] in b" \t\n\v\f\r":
                        right += 1; right_len -= 1
                if right_len <= 0:
                    break
                base, length = right, right_len
        frags = out
    return [[0, raw[f[1]:f[1] + f[2]].decode("utf-8", "surrogatepass")] if f[0] == "raw" else [1, f[1]] for f in frags]

def texts_for(toks, special, rng, n=40):
    pieces = [toks[i] for i in special]
    pieces = rng.sample(pieces, min(len(pieces), 40)) + [toks[i] for i in special[-10:]]
    pieces += [p[: max(1, len(p) // 2)] for p in pieces[:8]] + [p[len(p) // 2:] for p in pieces[:8]]
    fillers = [" ", "  ", "\n", "\t", " \n ", "Hello", " world", "x", "日本", "ø", "<", ">", "|", "▁"]
    out = []
    for _ in range(n):
        k = rng.randint(1, 10)
        out.append("".join(rng.choice(pieces) if rng.random() < 0.5 else rng.choice(fillers) for _ in range(k)))
    return out

def main():
    rng = random.Random(42)
    data = {}
    for name in VOCABS:
        toks, control, unknown, special, rstrip, lstrip = load(name)
        cases = []
        for text in texts_for(toks, special, rng):
            for parse_special in (True, False):
                frags = partition(text, toks, control, unknown, special, rstrip, lstrip, parse_special)
                cases.append({"text": text, "special": parse_special, "fragments": frags})
        data[name] = cases
    payload = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    with open(OUT, "w") as f:
        f.write("// Generated by scripts/special_split_vectors.py (a model of llama.cpp's\n")
        f.write("// tokenizer_st_partition). Do not edit.\n\n")
        f.write("enum TokenizerSpecialSplitVectors {\n")
        f.write("    /// `{vocabulary: [{\"text\", \"special\", \"fragments\": [[0, text] | [1, id]]}]}`.\n")
        f.write('    static let json = #"""\n' + payload + '\n"""#\n}\n')

if __name__ == "__main__":
    main()
