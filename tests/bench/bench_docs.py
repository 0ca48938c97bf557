"""What the benchmark reports share: putting a report into docs/.

    put_block(path, begin, end, body, add)

writes BODY between the markers BEGIN and END into the file PATH: in place
of what stands between them, or, when the file is missing or has no
such block yet, where add(text, block) puts the whole block (a heading of
the report's own and the block at the end, say). kmod-bench-report.py,
kstart-bench-report.py and qos-bench-report.py use it;
tests/bench/docs-block-test.py checks it.
"""
import os


def block_of(begin, end, body):
    """BODY between the markers, a blank line either side."""
    return begin + "\n\n" + body.rstrip() + "\n\n" + end


def put_block(path, begin, end, body, add):
    block = block_of(begin, end, body)
    text = open(path).read() if os.path.exists(path) else ""
    if begin in text and end in text:
        text = (text[:text.index(begin)] + block +
                text[text.index(end) + len(end):])
    else:
        text = add(text, block)
    with open(path, "w") as f:
        f.write(text)
