"""A TCP proxy that can reset and refuse connections for a while (the s3-outage scenario)."""

from __future__ import annotations

import selectors
import socket
import struct
import threading
import time


class FaultProxy(threading.Thread):
    """A TCP proxy 127.0.0.1:<port> -> 127.0.0.1:<target> (one thread, non-blocking sockets)
    that can stop serving for a while: outage(seconds) resets (RST) every open connection, and
    for `seconds` every new connection is accepted and reset at once. Counts what it did."""

    def __init__(self, target: int):
        super().__init__(name="fault-proxy", daemon=True)
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ)
        self.peers: dict[socket.socket, socket.socket] = {}
        self.clients: set[socket.socket] = set()
        self.lock = threading.Lock()
        self.down_until = 0.0
        self.reset_requested = False
        self.stopping = False
        self.counts = {"connections": 0, "bytes_to_server": 0, "bytes_to_client": 0,
                       "reset_open": 0, "reset_new": 0}
        self.start()

    def outage(self, seconds: float) -> None:
        with self.lock:
            self.down_until = time.monotonic() + seconds
            self.reset_requested = True

    def down(self) -> bool:
        return time.monotonic() < self.down_until

    def stop(self) -> None:
        self.stopping = True
        self.join(timeout=10)
        for sock in [*self.peers, self.listener]:
            sock.close()
        self.selector.close()

    @staticmethod
    def _reset(sock: socket.socket) -> None:
        try:  # linger 0: close() sends RST instead of FIN
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        sock.close()

    def _drop(self, sock: socket.socket, reset: bool) -> None:
        for s in (sock, self.peers.get(sock)):
            if s is not None and s in self.peers:
                del self.peers[s]
                self.clients.discard(s)
                self.selector.unregister(s)
                self._reset(s) if reset else s.close()

    def _accept(self) -> None:
        try:
            client, _ = self.listener.accept()
        except BlockingIOError:
            return
        if self.down():
            self.counts["reset_new"] += 1
            self._reset(client)
            return
        try:
            server = socket.create_connection(("127.0.0.1", self.target), timeout=5)
        except OSError:
            self._reset(client)
            return
        self.counts["connections"] += 1
        for sock, other in ((client, server), (server, client)):
            sock.setblocking(True)
            sock.settimeout(30)  # for sendall to the other side only; reads wait for select
            self.peers[sock] = other
            self.selector.register(sock, selectors.EVENT_READ)
        self.clients.add(client)

    def _pump(self, sock: socket.socket) -> None:
        try:
            data = sock.recv(1 << 16)
            if data:
                self.peers[sock].sendall(data)
                key = "bytes_to_client" if sock not in self.clients else "bytes_to_server"
                self.counts[key] += len(data)
                return
            self._drop(sock, reset=False)
        except OSError:
            self._drop(sock, reset=True)

    def run(self) -> None:
        while not self.stopping:
            with self.lock:
                reset, self.reset_requested = self.reset_requested, False
            if reset:
                self.counts["reset_open"] += len(self.clients)
                for client in list(self.clients):
                    self._drop(client, reset=True)
            for key, _ in self.selector.select(timeout=0.1):
                if key.fileobj is self.listener:
                    self._accept()
                elif key.fileobj in self.peers:
                    self._pump(key.fileobj)
