# SPDX-License-Identifier: BSD-3-Clause
"""An h2c server (python3-h2) that misbehaves in one way, for the error
cases of ewyk-loadgen --h2 (TestSuite_loadgen_h2). Run in the peer
namespace:

    python3 h2_bad_server.py MODE HOST PORT [K]

MODE:
- goaway: answer the first K requests of each connection (200, 12-byte
  body), then GOAWAY (NO_ERROR, last stream id = the K-th) and close;
- rst: answer odd requests, RST_STREAM (INTERNAL_ERROR) the even ones;
- badlen: answer with content-length 10 and 5 bytes of DATA;
- silent: accept, read, never send anything (no SETTINGS);
- stall: answer every request but the K-th of each connection, which
  never gets an answer (the others go on around it).

On SIGINT or SIGTERM it prints its counts as one JSON line and exits:
connections, requests (HEADERS received), answered, reset, refused
(received after its GOAWAY), stalled.
"""

import json
import signal
import socket
import sys
import threading

import h2.config
import h2.connection
import h2.events
import h2.exceptions

BODY = b"hello world\n"
counts = {"connections": 0, "requests": 0, "answered": 0, "reset": 0,
          "refused": 0, "stalled": 0}
lock = threading.Lock()


def count(k, n=1):
    with lock:
        counts[k] += n


def respond(c, sid, mode):
    if mode == "badlen":
        c.send_headers(sid, [(":status", "200"), ("content-length", "10")])
        c.send_data(sid, b"hello", end_stream=True)
        return
    c.send_headers(sid, [(":status", "200"),
                         ("content-length", str(len(BODY)))])
    c.send_data(sid, BODY, end_stream=True)


def serve(sock, mode, k):
    count("connections")
    if mode == "silent":
        while sock.recv(65536):
            pass
        sock.close()
        return
    c = h2.connection.H2Connection(config=h2.config.H2Configuration(
        client_side=False, header_encoding=None))
    c.initiate_connection()
    sock.sendall(c.data_to_send())
    n = last = 0
    gone = False
    try:
        while not gone:
            data = sock.recv(65536)
            if not data:
                break
            try:
                events = c.receive_data(data)
            except h2.exceptions.ProtocolError:
                break
            for ev in events:
                if not isinstance(ev, h2.events.RequestReceived):
                    continue
                count("requests")
                sid = ev.stream_id
                if gone:
                    count("refused")
                    continue
                n += 1
                if mode == "goaway" and n > k:
                    c.close_connection(error_code=0, last_stream_id=last)
                    gone = True
                    count("refused")
                elif mode == "stall" and n == k:
                    count("stalled")
                elif mode == "rst" and n % 2 == 0:
                    c.reset_stream(sid, error_code=2)
                    count("reset")
                else:
                    respond(c, sid, mode)
                    last = sid
                    if mode != "badlen":
                        count("answered")
            sock.sendall(c.data_to_send())
    except OSError:
        pass
    sock.close()


def main():
    mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    k = int(sys.argv[4]) if len(sys.argv) > 4 else 3

    def done(*_):
        with lock:
            print(json.dumps(counts), flush=True)
        sys.exit(0)

    signal.signal(signal.SIGINT, done)
    signal.signal(signal.SIGTERM, done)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((host, port))
    ls.listen(1024)
    print("listening", flush=True)
    while True:
        s, _ = ls.accept()
        threading.Thread(target=serve, args=(s, mode, k),
                         daemon=True).start()


if __name__ == "__main__":
    main()
