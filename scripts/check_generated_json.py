#!/usr/bin/env python3
"""Validates generated JSON outputs against their schemas with Python `jsonschema`.

Input: a JSONL file (written by EndToEndTests' maskbench generation test) with one object per line:
{"id": ..., "schema": {...}, "output": "<generated text>"}. Each output must parse as JSON and
validate against its schema, using the validator class of the schema's declared draft
(`validators.validator_for`, default 2020-12) with that draft's format checker — the same rules the
maskbench labels were checked with (see ../shared/grammar/README.md).

Usage: check_generated_json.py OUTPUTS.jsonl   (exit status 1 if any output is invalid)
"""
import json
import sys

import jsonschema
from jsonschema import validators


def main(path: str) -> int:
    total = invalid = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            item = json.loads(line)
            total += 1
            try:
                instance = json.loads(item["output"])
            except json.JSONDecodeError as e:
                invalid += 1
                print(f"{item['id']}: not JSON: {e}: {item['output'][:200]!r}")
                continue
            schema = item["schema"]
            cls = validators.validator_for(schema, default=jsonschema.Draft202012Validator)
            validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
            errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.path))
            if errors:
                invalid += 1
                print(f"{item['id']}: invalid: {errors[0].message[:200]} in {item['output'][:200]!r}")
    print(f"{total - invalid}/{total} outputs valid")
    return 0 if invalid == 0 and total > 0 else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
