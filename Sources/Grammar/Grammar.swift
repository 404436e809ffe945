// Grammar: JSON Schema, GBNF and regex compiled to per-token masks over a vocabulary.
// It never imports Engine: it sees token byte strings and produces packed UInt64 masks
// (token i allowed iff bit i % 64 of word i / 64 is set).
