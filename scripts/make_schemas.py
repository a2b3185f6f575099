#!/usr/bin/python3
"""Dumps every operator schema PyTorch knows into symbolite/ops/schema/pytorch_schemas.txt.

Run with the Python that has PyTorch 1.13 (/usr/bin/python3 on the build machine):

    /usr/bin/python3 scripts/make_schemas.py

One `str(schema)` per line, sorted and deduplicated, after a header of `#` lines (the
parser's table loader skips them). Custom-class method schemas
(torch._C._jit_get_custom_class_schemas) are left out: they have no namespace, so they are
not operators a model calls by name.
"""
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "symbolite" / "ops" / "schema" / "pytorch_schemas.txt"


def main():
    lines = sorted({str(s) for s in torch._C._jit_get_all_schemas()})
    for line in lines:
        if "\n" in line or line.startswith("#"):
            sys.exit(f"unexpected schema text: {line!r}")
    header = [
        f"# Operator schemas of PyTorch {torch.__version__}: str(schema) for every schema in",
        "# torch._C._jit_get_all_schemas(), sorted, deduplicated. Made by scripts/make_schemas.py.",
    ]
    OUT.write_text("\n".join(header + lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} schemas -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
