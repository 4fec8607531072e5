#!/usr/bin/env python3
"""Prints N (default 1) distinct free TCP ports on 127.0.0.1, space-separated: all are bound at
once, so the same port never comes twice. Used by scripts/services.sh and bench/cluster.sh."""
import socket
import sys

count = int(sys.argv[1]) if len(sys.argv) > 1 else 1
sockets = [socket.socket() for _ in range(count)]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))
for s in sockets:
    s.close()
