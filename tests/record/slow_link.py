#!/usr/bin/env python3
"""A slow cable for the record tests: relays 127.0.0.1:LISTEN <-> 127.0.0.1:TARGET
(a fathom-test-adbd) and passes the device's bytes at most RATE bytes/s, so a
pull lasts long enough for a test to interrupt it, deterministically.
Bytes to the device go at full speed (pushing the recorder stays quick).

usage: slow_link.py TARGET_PORT RATE   (prints "listening on 127.0.0.1:PORT")
"""
import socket
import sys
import threading
import time


def relay(src, dst, rate):
    try:
        while True:
            data = src.recv(512 if rate else 65536)
            if not data:
                break
            dst.sendall(data)
            if rate:
                time.sleep(len(data) / rate)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main():
    target, rate = int(sys.argv[1]), float(sys.argv[2])
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    print("listening on 127.0.0.1:%d" % server.getsockname()[1], flush=True)
    while True:
        host, _ = server.accept()
        device = socket.create_connection(("127.0.0.1", target))
        threading.Thread(target=relay, args=(host, device, 0), daemon=True).start()
        threading.Thread(target=relay, args=(device, host, rate), daemon=True).start()


if __name__ == "__main__":
    main()
