#!/usr/bin/env python3
"""Generates Tests/EngineTests/TokenizerPreTokenizerVectors.swift: how llama.cpp's own
`unicode_regex_split` cuts a corpus of strings into words under every pre-tokenizer Loom
implements, so the test pins Loom's hand-written matchers to the reference.

llama.cpp is not linked: the script compiles a tiny harness against llama.cpp's src/unicode.cpp
and src/unicode-data.cpp, and reads each pre-tokenizer's expression list out of
src/llama-vocab.cpp (name → LLAMA_VOCAB_PRE_TYPE_* → regex_exprs).

usage: python3 scripts/tokenizer_vectors.py LLAMA_CPP_SRC_DIR
(LLAMA_CPP_SRC_DIR: llama.cpp's src/, e.g. from the PyPI sdist llama-cpp-python==0.3.36,
 vendor/llama.cpp/src; needs g++.)
"""
import json, os, random, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
OUT = os.path.join(ROOT, "Tests", "EngineTests", "TokenizerPreTokenizerVectors.swift")

NAMES = ["default", "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2",
         "dbrx", "smaug-bpe", "deepseek-llm", "deepseek-coder", "falcon", "mpt", "starcoder", "refact",
         "command-r", "smollm", "codeshell", "exaone", "minerva-7b", "mellum2", "gpt-2", "phi-2", "jina-es",
         "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum", "modern-bert", "jina-v1-en",
         "jina-v2-code", "roberta-bpe", "olmo", "jais", "exaone4", "trillion", "granite-docling", "qwen2",
         "deepseek-r1-qwen", "kormo", "f2llmv2", "megrez", "stablelm2", "hunyuan", "solar-open"]

EXTRA = [
    "Hello World 123,456.78 $100 +1-2=3 <a href=\"x\">|~^`</a>",
    "I'M YOU'RE we'Ll THEY'VE he'D she'S it'T 's 's's ''",
    "a\u00a0b\u3000c \u2003x\u2028y\u0085z\u200bw",
    "数字１２３ ١٢٣ ⅷ ½ ²³ 12345678901234",
    "日本語のテキスト한국어 Ελληνικά Кириллица עברית",
    "x\r\n\r\n  y\n \n\t\tz  ",
    "`code` ~tilde~ ^caret^ |pipe| @at #hash %pct &amp *star _under_",
    "ab\u1c89cd",
    "！＂＃（）～、。「」 ‘quotes’ “double” — – … ·",
    "ǅungla ʔ ɐ ᴀ ꭰ ﬀ Ａｚ 𐐀 µ ß ÿ",
    "    indented\n        more\n",
    "emoji 👩‍👩‍👧‍👦🏳️‍🌈 ok ✅",
    "1234567890123 0.5 1e10 -7 000 0000",
    "\n\n\n   \t \u3000\u3000 end   ",
    "x\u0301y\u0308 e\u20dd",
    "<|endoftext|> <s> </s> [INST]",
    "\u3000。、 \u3000x",
]

def random_strings(n=120, seed=1234):
    pool = (list("abcXYZ019 '\t\n\r.,!?-_$+<=>^~|`\"()[]{}") +
            ["\u00a0", "\u3000", "é", "ß", "Ω", "д", "ש", "ع", "日", "本", "한", "１", "٣", "½", "…", "—", "“", "’",
             "😀", "👩‍👩‍👧", "\u0301", "\u200b", "\u2028", "\u0085", "ǅ", "Ａ", "！", "、", "。", "𐐀", "\u1c89",
             "ⅷ", "\u0800", "\u4e00", "\ud7ff"])
    rng = random.Random(seed)
    return ["".join(rng.choice(pool) for _ in range(rng.randint(1, 24))) for _ in range(n)]

HARNESS = r"""
#include "unicode.h"
#include <fstream>
#include <iostream>
#include <string>
#include <vector>
static std::string unhex(const std::string & h) {
    std::string s;
    for (size_t i = 0; i + 1 < h.size(); i += 2) s.push_back((char) std::stoi(h.substr(i, 2), nullptr, 16));
    return s;
}
int main(int argc, char ** argv) {
    std::ifstream rf(argv[1]), tf(argv[2]);
    std::vector<std::string> texts, regs;
    std::string line;
    while (std::getline(tf, line)) texts.push_back(unhex(line));
    while (std::getline(rf, line)) regs.push_back(unhex(line));
    for (auto & t : texts) {
        auto words = unicode_regex_split(t, regs, false);
        for (size_t i = 0; i < words.size(); i++) std::cout << (i ? " " : "") << words[i].size();
        std::cout << "\n";
    }
}
"""

# unicode-data.h is not shipped in every source drop; these are the declarations unicode.cpp needs.
DATA_HEADER = """#pragma once
#include <cstdint>
#include <initializer_list>
#include <unordered_set>
#include <utility>
struct range_nfd { uint32_t first; uint32_t last; uint32_t nfd; };
static const uint32_t MAX_CODEPOINTS = 0x110000;
extern const std::initializer_list<std::pair<uint32_t, uint16_t>> unicode_ranges_flags;
extern const std::unordered_set<uint32_t> unicode_set_whitespace;
extern const std::initializer_list<std::pair<uint32_t, uint32_t>> unicode_map_lowercase;
extern const std::initializer_list<std::pair<uint32_t, uint32_t>> unicode_map_uppercase;
extern const std::initializer_list<range_nfd> unicode_ranges_nfd;
"""

def unescape(s):
    table = {"\\": "\\", "r": "\r", "n": "\n", '"': '"', "t": "\t"}
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\":
            out.append(table[s[i + 1]]); i += 2
        else:
            out.append(s[i]); i += 1
    return "".join(out)

def expressions(vocab_src):
    """name → list of regexes, read from llama-vocab.cpp."""
    load = vocab_src[vocab_src.index("if (tokenizer_pre.empty())"):vocab_src.index("unknown pre-tokenizer type")]
    name_type = {"default": "LLAMA_VOCAB_PRE_TYPE_DEFAULT"}
    for m in re.finditer(r'((?:tokenizer_pre == "[^"]+"\s*(?:\|\|)?\s*)+)\)\s*\{\s*pre_type\s*=\s*(LLAMA_VOCAB_PRE_TYPE_\w+)', load):
        for n in re.findall(r'tokenizer_pre == "([^"]+)"', m.group(1)):
            name_type[n] = m.group(2)
    start = vocab_src.index("struct llm_tokenizer_bpe : llm_tokenizer {")
    body = vocab_src[start:vocab_src.index("std::vector<std::string> regex_exprs;", start)]
    type_regex, pending = {}, []
    for block in re.split(r"\n\s*(?=case LLAMA_VOCAB_PRE_TYPE_|default:)", body):
        pending += re.findall(r"case (LLAMA_VOCAB_PRE_TYPE_\w+):", block)
        if block.strip().startswith("default:"):
            pending.append("LLAMA_VOCAB_PRE_TYPE_DEFAULT")
        if "regex_exprs = {" in block:
            inner = block[block.index("regex_exprs = {"):]
            inner = "\n".join(l for l in inner[:inner.index("};")].split("\n") if not l.strip().startswith("//"))
            regs, cur = [], ""
            for lit, comma in re.findall(r'"((?:[^"\\]|\\.)*)"|(,)', inner):
                if comma:
                    regs.append(cur); cur = ""
                else:
                    cur += unescape(lit)
            if cur:
                regs.append(cur)
            for t in pending:
                type_regex[t] = regs
            pending = []
    return {n: type_regex[name_type[n]] for n in NAMES}

def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    src = sys.argv[1]
    exprs = expressions(open(os.path.join(src, "llama-vocab.cpp"), encoding="utf-8").read())
    inp = open(os.path.join(SHARED, "vocab", "ggml-vocab-gpt-2.gguf.inp"), encoding="utf-8").read()
    texts = [t for t in inp.split("\n__ggml_vocab_test__\n") if t] + EXTRA + random_strings()
    groups = {}  # regex list → names sharing it
    for n in NAMES:
        groups.setdefault(json.dumps(exprs[n]), []).append(n)
    with tempfile.TemporaryDirectory() as tmp:
        for f in ("unicode.cpp", "unicode-data.cpp", "unicode.h"):
            with open(os.path.join(src, f), encoding="utf-8") as a, open(os.path.join(tmp, f), "w", encoding="utf-8") as b:
                b.write(a.read())
        open(os.path.join(tmp, "unicode-data.h"), "w").write(DATA_HEADER)
        open(os.path.join(tmp, "harness.cpp"), "w").write(HARNESS)
        exe = os.path.join(tmp, "harness")
        subprocess.run(["g++", "-O1", "-std=c++17", "-o", exe, "harness.cpp", "unicode.cpp", "unicode-data.cpp"],
                       cwd=tmp, check=True)
        tf = os.path.join(tmp, "texts.txt")
        open(tf, "w").write("".join(t.encode().hex() + "\n" for t in texts))
        cases = []
        for key, names in groups.items():
            rf = os.path.join(tmp, "regexes.txt")
            open(rf, "w").write("".join(r.encode().hex() + "\n" for r in json.loads(key)))
            out = subprocess.run([exe, rf, tf], check=True, capture_output=True, text=True).stdout
            lengths = [[int(x) for x in line.split()] for line in out.split("\n")[:len(texts)]]
            cases.append({"names": names, "word_lengths": lengths})
            print(names, file=sys.stderr)
    payload = json.dumps({"texts": texts, "cases": cases}, ensure_ascii=True, separators=(",", ":"))
    with open(OUT, "w") as f:
        f.write("// Generated by scripts/tokenizer_vectors.py with llama.cpp's unicode_regex_split\n")
        f.write("// (llama-cpp-python 0.3.36's vendor/llama.cpp). Do not edit.\n\n")
        f.write("enum TokenizerPreTokenizerVectors {\n")
        f.write("    /// `{\"texts\": [String], \"cases\": [{\"names\": [pre], \"word_lengths\": [[UTF-8 bytes per word]]}]}`.\n")
        f.write('    static let json = #"""\n' + payload + '\n"""#\n}\n')

if __name__ == "__main__":
    main()
