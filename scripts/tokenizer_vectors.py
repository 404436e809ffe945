#!/usr/bin/env python3
"""Generates Tests/EngineTests/TokenizerPreTokenizerVectors.swift: llama.cpp's token ids for one
byte-level vocabulary (GPT-2's, from ../shared/vocab) under every pre-tokenizer Loom implements.

The vocabulary file is rewritten with each `tokenizer.ggml.pre` and tokenized by llama.cpp itself
(through the PyPI package llama-cpp-python, see ../shared/tools/llamacpp-venv.sh), so the test
pins Loom's hand-written pre-tokenizers to the reference on the same merges.

usage: LLAMACPP_PYTHON=$(../shared/tools/llamacpp-venv.sh) \
       /work/main/.venv/bin/python scripts/tokenizer_vectors.py
(the gguf package comes from this interpreter; llama.cpp runs in LLAMACPP_PYTHON.)
"""
import json, os, random, subprocess, sys, tempfile

import gguf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
BASE = os.path.join(SHARED, "vocab", "ggml-vocab-gpt-2.gguf")
OUT = os.path.join(ROOT, "Tests", "EngineTests", "TokenizerPreTokenizerVectors.swift")

PRES = ["default", "llama-bpe", "dbrx", "deepseek-llm", "deepseek-coder", "falcon", "mpt", "starcoder",
        "gpt-2", "refact", "command-r", "qwen2", "stablelm2", "olmo", "smollm", "codeshell", "exaone",
        "megrez", "trillion", "jais", "phi-2"]

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
]

# Strings full of special-token texts, tokenized with special parsing on, for every shared vocabulary.
SPECIAL_TEXTS = [
    "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\n",
    "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHello<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
    "<|user|>\n  Hello <|end|>\n<|assistant|>  x</s>  y<s> z<unk>",
    "<s>[INST] hi [/INST] ok</s><s>again",
    "<|endoftext|><|endoftext|>text<|endoftext|> spaced <|endoftext|>",
    "<｜begin▁of▁sentence｜>User: ø ö ú<｜end▁of▁sentence｜>",
    "<fim_prefix>def f():<fim_suffix>\n<fim_middle>",
    "plain text without specials ø",
    "<|im_start|><|im_start|>nested<|im_end|><|im_end|>",
]
VOCABS = ["llama-spm", "phi-3", "gpt-2", "llama-bpe", "qwen2", "starcoder", "deepseek-llm"]

def random_strings(n=60, seed=1234):
    pool = (list("abcXYZ019 '\t\n\r.,!?-_$+<=>^~|`\"()[]{}") +
            ["\u00a0", "\u3000", "é", "ß", "Ω", "д", "ש", "ع", "日", "本", "한", "１", "٣", "½", "…", "—", "“", "’",
             "😀", "👩‍👩‍👧", "\u0301", "\u200b", "\u2028", "\u0085", "ǅ", "Ａ", "！", "、", "𐐀", "\u1c89"])
    rng = random.Random(seed)
    return ["".join(rng.choice(pool) for _ in range(rng.randint(1, 24))) for _ in range(n)]

def rewrite(pre, path):
    r = gguf.GGUFReader(BASE)
    w = gguf.GGUFWriter(path, arch=str(r.fields["general.architecture"].contents()))
    for name, field in r.fields.items():
        if name.startswith("GGUF.") or name == "general.architecture":
            continue
        value = pre if name == "tokenizer.ggml.pre" else field.contents()
        sub = field.types[-1] if field.types[0] == gguf.GGUFValueType.ARRAY else None
        w.add_key_value(name, value, field.types[0], sub_type=sub)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.close()

TOKENIZE = r"""
import json, sys, llama_cpp
path, texts, special = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3] == "1"
llm = llama_cpp.Llama(model_path=path, vocab_only=True, verbose=False)
print(json.dumps([llm.tokenize(t.encode(), add_bos=False, special=special) for t in texts]))
"""

def main():
    llamacpp = os.environ.get("LLAMACPP_PYTHON")
    if not llamacpp:
        sys.exit("set LLAMACPP_PYTHON to a python with llama-cpp-python (../shared/tools/llamacpp-venv.sh)")
    inp = open(os.path.join(SHARED, "vocab", "ggml-vocab-gpt-2.gguf.inp"), encoding="utf-8").read()
    texts = [t for t in inp.split("\n__ggml_vocab_test__\n") if t] + EXTRA + random_strings()
    ids = {}
    with tempfile.TemporaryDirectory() as tmp:
        tf = os.path.join(tmp, "texts.json")
        json.dump(texts, open(tf, "w"))
        for pre in PRES:
            path = os.path.join(tmp, f"{pre}.gguf")
            rewrite(pre, path)
            out = subprocess.run([llamacpp, "-c", TOKENIZE, path, tf, "0"], check=True, capture_output=True, text=True)
            ids[pre] = json.loads(out.stdout)
            print(pre, file=sys.stderr)
        sf = os.path.join(tmp, "special.json")
        json.dump(SPECIAL_TEXTS, open(sf, "w"))
        special = {}
        for name in VOCABS:
            path = os.path.join(SHARED, "vocab", f"ggml-vocab-{name}.gguf")
            out = subprocess.run([llamacpp, "-c", TOKENIZE, path, sf, "1"], check=True, capture_output=True, text=True)
            special[name] = json.loads(out.stdout)
    payload = json.dumps({"texts": texts, "ids": ids, "special_texts": SPECIAL_TEXTS, "special": special},
                         ensure_ascii=True, separators=(",", ":"))
    with open(OUT, "w") as f:
        f.write("// Generated by scripts/tokenizer_vectors.py from llama.cpp (llama-cpp-python 0.3.36) on\n")
        f.write("// ../shared/vocab/ggml-vocab-gpt-2.gguf with tokenizer.ggml.pre rewritten. Do not edit.\n\n")
        f.write("enum TokenizerPreTokenizerVectors {\n")
        f.write("    /// `{\"texts\", \"ids\": {pre: [[id]]}}` (special parsing off) and `{\"special_texts\",\n")
        f.write("    /// \"special\": {vocabulary: [[id]]}}` (special parsing on); never BOS.\n")
        f.write('    static let json = #"""\n')
        f.write(payload + "\n")
        f.write('    """#\n}\n')

if __name__ == "__main__":
    main()
