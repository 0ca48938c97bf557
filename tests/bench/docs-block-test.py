#!/usr/bin/env python3
"""unit.bench_docs: bench_docs.put_block(), which kmod-bench-report.py,
kstart-bench-report.py and qos-bench-report.py put their reports into
their pages with (docs/bench-kmod.md, bench-kstart.md, bench-qos.md). The
three reports load (each imports bench_docs); putting back the body each
block of its page holds leaves the page byte for byte the same; a new body replaces only its block; a file
without the block gets it where the report's add() says (qos: inside its
section), and a missing file is made.

    docs-block-test.py KMOD_PAGE KSTART_PAGE QOS_PAGE
"""
import importlib.util
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_docs  # noqa: E402

fails = 0


def check(ok, what):
    global fails
    if not ok:
        fails += 1
        print("FAIL:", what)


def load(name):
    spec = importlib.util.spec_from_file_location(
        name.replace("-", "_"), os.path.join(HERE, name + ".py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def main():
    pages = sys.argv[1:4]
    os.environ.pop("KCSMUX_BENCH_TAG", None)
    reports = [load(n) for n in
               ("kmod-bench-report", "kstart-bench-report", "qos-bench-report")]
    qos = reports[2]
    tmp = tempfile.mkdtemp()
    try:
        path = os.path.join(tmp, "doc.md")

        def never(text, block):
            check(False, "add() called though the block is there")
            return text

        for r, docs in zip(reports, pages):
            orig = open(docs).read()
            check(r.BEGIN in orig and r.END in orig,
                  "%s: %s has no block" % (r.__name__, docs))
            if r.BEGIN not in orig:
                continue
            i = orig.index(r.BEGIN) + len(r.BEGIN)
            body = orig[i:orig.index(r.END)].strip("\n") + "\n"
            shutil.copy(docs, path)
            bench_docs.put_block(path, r.BEGIN, r.END, body, never)
            check(open(path).read() == orig,
                  "%s: the same body changed the docs" % r.__name__)
            bench_docs.put_block(path, r.BEGIN, r.END, "new\n", never)
            text = open(path).read()
            want = (orig[:orig.index(r.BEGIN)] +
                    bench_docs.block_of(r.BEGIN, r.END, "new") +
                    orig[orig.index(r.END) + len(r.END):])
            check(text == want,
                  "%s: a new body changed more than its block" % r.__name__)

        # no block yet: qos's goes inside its section, or makes the section
        with open(path, "w") as f:
            f.write("# t\n\n%s\n\nintro\n\n%s\n\nafter\n" %
                    (qos.OUTER_BEGIN, qos.OUTER_END))
        bench_docs.put_block(path, qos.BEGIN, qos.END, "b1", qos.add_to_docs)
        check(open(path).read() ==
              "# t\n\n%s\n\nintro\n\n%s\n\n%s\n\nafter\n" %
              (qos.OUTER_BEGIN, bench_docs.block_of(qos.BEGIN, qos.END, "b1"),
               qos.OUTER_END), "qos: the block is not inside its section")
        os.remove(path)
        bench_docs.put_block(path, qos.BEGIN, qos.END, "b2", qos.add_to_docs)
        text = open(path).read()
        check(text.startswith("\n\n" + qos.OUTER_BEGIN + "\n\n## QoS") and
              text.endswith(bench_docs.block_of(qos.BEGIN, qos.END, "b2") +
                            "\n\n" + qos.OUTER_END + "\n"),
              "qos: a missing file did not get the section: %r" % text)
    finally:
        shutil.rmtree(tmp)
    if fails:
        sys.exit(1)
    print("docs-block-test.py: %d reports' blocks put back unchanged"
          % len(reports))


if __name__ == "__main__":
    main()
