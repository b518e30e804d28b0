# SPDX-License-Identifier: BSD-3-Clause
"""The measure that strategy_count.py and hello_http_load.py share: how
many fast round trips complete while one slow request is outstanding.

For SECS seconds: send one slow request, then fast requests one at a
time until the slow answer is readable (select() looks at the slow
socket first, so an answer that came first is seen first). The count of
fast round trips completed in that time is the measure for that slow
request: a server whose only poller runs the blocking call completes
none (the slow request left first on the same path, so it reached the
worker first); one that moves production to a reserved lcore completes
several. One client thread does both, so its own descheduling stops
both sides alike and cannot add round trips to a window.

Each side is an object with a socket `s`, `send()` and `read()` (read
one whole answer and check it).
"""
import select, time


def count_during(slow, fast, secs):
    """The count of fast round trips per slow request, over SECS."""
    during = []
    end = time.monotonic() + secs
    while time.monotonic() < end:
        slow.send()
        n, pending = 0, False
        while True:
            if not pending:
                fast.send()
                pending = True
            r, _, _ = select.select([slow.s, fast.s], [], [], 10)
            if not r:
                raise TimeoutError("no answer in 10 s")
            if slow.s in r:
                break
            fast.read()
            pending = False
            n += 1
        slow.read()
        during.append(n)
        if pending:  # its answer comes after the slow one's: not counted
            fast.read()
    return during
