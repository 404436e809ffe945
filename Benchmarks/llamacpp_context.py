"""One llama.cpp context through the C API of the PyPI package llama-cpp-python, as the
Benchmarks/*_llamacpp.py scripts measure llama.cpp: the model loaded with its default parameters,
a context of n_ctx positions taking batches of up to n_batch tokens on `threads` threads, and one
sequence that runs of tokens are decoded into (asking for the last token's logits, as a prompt
does)."""
import llama_cpp as L


class LlamaContext:
    def __init__(self, model_path, n_ctx, n_batch, threads, flash_attn=None):
        """flash_attn: one of llama_cpp's LLAMA_FLASH_ATTN_TYPE_* values, or None for llama.cpp's default."""
        L.llama_backend_init()
        self.model = L.llama_model_load_from_file(model_path.encode(), L.llama_model_default_params())
        assert self.model, "load failed"
        cp = L.llama_context_default_params()
        cp.n_ctx = n_ctx; cp.n_batch = n_batch; cp.n_ubatch = n_batch
        cp.n_threads = threads; cp.n_threads_batch = threads
        if flash_attn is not None:
            cp.flash_attn_type = flash_attn
        self.ctx = L.llama_init_from_model(self.model, cp)
        self.vocab_size = L.llama_vocab_n_tokens(L.llama_model_get_vocab(self.model))
        self.memory = L.llama_get_memory(self.ctx)
        self.batch = L.llama_batch_init(n_batch, 0, 1)

    def clear(self):
        """Empties the cache."""
        L.llama_memory_clear(self.memory, True)

    def decode(self, tokens, start):
        """Evaluates `tokens` at positions start, start + 1, …; only the last one's logits are kept."""
        b = self.batch
        b.n_tokens = len(tokens)
        for i, t in enumerate(tokens):
            b.token[i] = t; b.pos[i] = start + i; b.n_seq_id[i] = 1; b.seq_id[i][0] = 0
            b.logits[i] = 1 if i == len(tokens) - 1 else 0
        assert L.llama_decode(self.ctx, b) == 0

    def synchronize(self):
        """Waits for the work decode queued."""
        L.llama_synchronize(self.ctx)
