"""Threads sharing one module: a module and the modules made from it share one context, which
the engines write to (a partition interns its functions' names and attributes), so an engine
must not run while another thread reads or writes that context."""
import sys
import threading

import graphpat.dpl as dpl
import graphpat.relay as relay
from conftest import DATA

PATTERNS = [
    dpl.is_op("clip")(dpl.wildcard()),
    dpl.is_op("nn.conv2d")(dpl.wildcard(), dpl.wildcard()),
    dpl.is_tuple_get_item(dpl.wildcard(), 0),
    dpl.is_op("add")(dpl.wildcard(), dpl.wildcard()),
]
THREADS = 4
ROUNDS = 400


def composite(thread, round_):
    # A new name per call, some longer than a short string: each partition adds strings and
    # attribute values to the shared context, growing its tables while the other threads work.
    return "c%d_%d_%s" % (thread, round_, "x" * (round_ % 40))


def work(mod, thread):
    pattern = PATTERNS[thread % len(PATTERNS)]
    return [pattern.partition(mod, attrs={"Composite": composite(thread, r)})[0].astext()
            for r in range(ROUNDS)]


def test_threads_partitioning_one_module_get_what_one_thread_gets():
    mod = relay.parse((DATA / "corpus" / "models" / "mobilenet_v2_mxnet_style.relay").read_text())
    results = [None] * THREADS
    errors = []

    def run(thread):
        try:
            results[thread] = work(mod, thread)
        except Exception as error:  # pylint: disable=broad-except
            errors.append(error)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads as often as the interpreter lets them
    try:
        threads = [threading.Thread(target=run, args=(k,)) for k in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
    for thread in range(THREADS):
        alone = work(relay.parse(mod.astext()), thread)
        assert results[thread] == alone
        # Every pattern outlines groups here (36 clips, 54 convolutions, 53 items, 10 adds).
        assert ', Composite="%s") {' % composite(thread, ROUNDS - 1) in alone[-1]
