#!/usr/bin/env python3
"""build.params: no function in fused/ or kmod/ takes more than 7
parameters (requests travel as struct ipmi_request, not as
loose arguments). The one exception is what a library's callback type
fixes: libfuse's ioctl operation (cuse/node.c node_ioctl, 8).

    tests/params.py [SRCDIR]
"""
import glob
import os
import re
import sys

MAX = 7
EXEMPT = {"node_ioctl"}  # struct cuse_lowlevel_ops.ioctl

src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..")
files = sorted(glob.glob(os.path.join(src, "fused/**/*.[ch]"), recursive=True)
               + glob.glob(os.path.join(src, "kmod/*.[ch]")))
DECL = re.compile(r"^[A-Za-z_][\w \*]*?\b(\w+)\s*\(([^;{)]*(?:\([^)]*\)[^;{)]*)*)\)"
                  r"\s*(?:__attribute__\(\(.*?\)\)\s*)?[{;]", re.M)
bad = 0
count = 0
for f in files:
    with open(f) as fh:
        s = re.sub(r"/\*.*?\*/", "", fh.read(), flags=re.S)
    for m in DECL.finditer(s):
        name, params = m.group(1), m.group(2)
        if name in ("if", "while", "for", "switch", "return", "sizeof"):
            continue
        count += 1
        if params.strip() in ("void", ""):
            continue
        depth, n = 0, 1
        for ch in params:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            elif ch == "," and depth == 0:
                n += 1
        if n > MAX and name not in EXEMPT:
            print(f"params.py: {os.path.relpath(f, src)}: {name}() takes {n} parameters (at most {MAX})")
            bad += 1
print(f"params.py: {count} declarations in {len(files)} files, {bad} over {MAX} parameters")
sys.exit(1 if bad else 0)
