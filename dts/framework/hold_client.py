# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_l3: a TCP client that makes
ewyk hold many mbufs at once. It sends N bytes to the echo port with a
tiny receive window, shuts its side, prints "SHUT" and reads the echo
only when told (a line on stdin); then prints the bytes it read.

    python3 hold_client.py HOST PORT N
"""
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect((sys.argv[1], int(sys.argv[2])))
s.sendall(b"h" * int(sys.argv[3]))
s.shutdown(socket.SHUT_WR)
print("SHUT", flush=True)
sys.stdin.readline()
got = 0
while True:
    d = s.recv(65536)
    if not d:
        break
    got += len(d)
print(got, flush=True)
