# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_tcp: echo and discard clients
on the kernel's TCP. Each mode prints one JSON line.

    python3 tcp_client.py file HOST PORT IN_FILE OUT_FILE TIMEOUT
    python3 tcp_client.py many HOST PORT N SIZE TIMEOUT
    python3 tcp_client.py halfclose HOST PORT SIZE   (waits for "go" on stdin)
    python3 tcp_client.py rst HOST PORT
    python3 tcp_client.py refused HOST PORT
"""
import hashlib, json, os, selectors, socket, struct, sys, time

def echo(host, port, payloads, timeout, wait_go=False, rcvbuf=0):
    sel = selectors.DefaultSelector()
    conns = []
    for p in payloads:
        s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        if rcvbuf:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.setblocking(False)
        s.connect_ex((host, port))
        st = {"s": s, "out": memoryview(p), "off": 0, "in": bytearray(),
              "shut": False, "done": False, "err": None}
        sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE, st)
        conns.append(st)
    deadline = time.monotonic() + timeout
    pending = len(conns)
    while pending and time.monotonic() < deadline:
        for key, ev in sel.select(timeout=0.5):
            st = key.data
            s = st["s"]
            if ev & selectors.EVENT_WRITE and not st["shut"]:
                try:
                    st["off"] += s.send(st["out"][st["off"]:st["off"] + 65536])
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError as e:
                    st["err"] = repr(e)
                if st["off"] == len(st["out"]) or st["err"]:
                    try:
                        s.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    st["shut"] = True
                    sel.modify(s, selectors.EVENT_READ, st)
                    if wait_go:
                        # Tell the test our FIN is out; read nothing until
                        # it says so (the peer's window stays closed).
                        print("SHUT", flush=True)
                        sys.stdin.readline()
            if ev & selectors.EVENT_READ:
                if wait_go and not st["shut"]:
                    time.sleep(0.01)
                    continue
                try:
                    d = s.recv(262144)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError as e:
                    st["err"] = repr(e)
                    d = b""
                if d:
                    st["in"] += d
                else:
                    st["done"] = True
                    sel.unregister(s)
                    s.close()
                    pending -= 1
    return conns

def main():
    mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    t0 = time.monotonic()
    res = {}
    if mode == "file":
        data = open(sys.argv[4], "rb").read()
        c = echo(host, port, [data], float(sys.argv[6]))[0]
        open(sys.argv[5], "wb").write(c["in"])
        res = {"sent": c["off"], "received": len(c["in"]), "eof": c["done"],
               "err": c["err"], "sha256": hashlib.sha256(c["in"]).hexdigest()}
    elif mode == "many":
        n, size = int(sys.argv[4]), int(sys.argv[5])
        pays = [os.urandom(size) for _ in range(n)]
        cs = echo(host, port, pays, float(sys.argv[6]))
        res = {"ok": sum(1 for p, c in zip(pays, cs) if c["done"] and bytes(c["in"]) == p),
               "eof": sum(1 for c in cs if c["done"]),
               "errors": [c["err"] for c in cs if c["err"]][:5]}
    elif mode == "halfclose":
        size = int(sys.argv[4])
        p = os.urandom(size)
        c = echo(host, port, [p], 120, wait_go=True, rcvbuf=16384)[0]
        res = {"ok": bytes(c["in"]) == p, "received": len(c["in"]),
               "eof": c["done"], "err": c["err"]}
    elif mode == "rst":
        s = socket.create_connection((host, port), timeout=5)
        s.sendall(b"r" * 1000)
        got = b""
        while len(got) < 1000:
            d = s.recv(4096)
            if not d:
                break
            got += d
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
        res = {"echoed": len(got)}
    elif mode == "refused":
        try:
            socket.create_connection((host, port), timeout=5).close()
            res = {"result": "connected"}
        except ConnectionRefusedError:
            res = {"result": "refused"}
        except OSError as e:
            res = {"result": repr(e)}
    res["secs"] = round(time.monotonic() - t0, 3)
    print(json.dumps(res))

main()
