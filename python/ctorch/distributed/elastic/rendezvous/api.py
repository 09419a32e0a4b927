"""The two rendezvous backends of the launcher.

static: --node_rank and --nnodes are given; the node of rank 0 hosts a
  TCPStore at --master_addr:--master_port, and the workers use that same
  store (TORCHELASTIC_USE_AGENT_STORE=True, keys under /worker/attempt_N).
c10d: the launcher on the host named by --rdzv_endpoint hosts the store
  (when two launchers share a host the second finds the port taken and
  becomes a client); node ranks are given in order of arrival, and rank 0
  picks MASTER_ADDR/MASTER_PORT for its workers' own store.

Each rendezvous is a numbered round; a restart opens the next round, and
a launcher whose workers are healthy sees a peer waiting in it
(num_nodes_waiting) and restarts its group too.

Every wait here (connecting to a store that is not up yet, a key another
node has not written yet, the exit barrier) is a loop of short store calls
and sleeps, never one blocking store call: the store retries its socket
calls on EINTR, so only between calls can a SIGINT or SIGTERM to the
launcher raise SignalException and stop the job.
"""
import datetime
import ipaddress
import json
import socket
import time
from dataclasses import dataclass
from typing import List

from ... import PrefixStore, TCPStore
from ..utils.logging import get_logger

log = get_logger(__name__)

_DEFAULT_PORT = 29400

# what a store call raises when the host is gone or slow; a best-effort
# call catches these only, so a SignalException raised by the launcher's
# signal handler during the call still ends the job
_STORE_ERRORS = (RuntimeError, OSError)

# the longest one blocking attempt to connect lasts (see the module note)
_CONNECT_SLICE = datetime.timedelta(seconds=0.5)

# the timeout of every store call once connected: the calls here answer at
# once, but with the host gone each one reconnects until its timeout (with
# the rendezvous timeout, 900 s, a node whose host died sat in the exit
# barrier, deaf to signals)
_CALL_TIMEOUT = datetime.timedelta(seconds=5)


@dataclass
class RendezvousInfo:
    """What one round gave this node."""
    group_rank: int
    group_world_size: int
    local_world_sizes: List[int]     # by group rank
    master_addr: str
    master_port: int
    use_agent_store: bool


def parse_rendezvous_endpoint(endpoint, default_port):
    """"host[:port]" (IPv6 in brackets) -> (host, port)."""
    if endpoint is not None:
        endpoint = endpoint.strip()
    if not endpoint:
        return ("localhost", default_port)
    if endpoint[0] == "[" and endpoint[-1] == "]":
        host, rest = endpoint, []
    else:
        host, *rest = endpoint.rsplit(":", 1)
    if len(host) > 1 and host[0] == "[" and host[-1] == "]":
        host = host[1:-1]
    if len(rest) == 1:
        port = int(rest[0])
        if not 0 <= port < 2 ** 16:
            raise ValueError(
                f"The port number of the rendezvous endpoint '{endpoint}' must "
                f"be an integer between 0 and 65536.")
    else:
        port = default_port
    if not host:
        raise ValueError(f"The hostname of the rendezvous endpoint '{endpoint}' "
                         f"must be a dot-separated list of labels, an IPv4 "
                         f"address, or an IPv6 address.")
    return host, port


def _is_local_host(host):
    """Whether `host` names this machine (so its launcher hosts the store)."""
    if host == "localhost":
        return True
    try:
        if ipaddress.ip_address(host).is_loopback:
            return True
    except ValueError:
        pass
    if host in (socket.gethostname(), socket.getfqdn()):
        return True
    try:
        addrs = {a[4][0] for a in socket.getaddrinfo(host, None)}
    except OSError:
        return False
    for addr in addrs:
        try:
            with socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET) as s:
                s.bind((addr, 0))
            return True
        except OSError:
            continue
    return False


def _local_addr_towards(host, port):
    """This machine's address on the route to host:port (what its peers can
    reach it by; in a network namespace that is not the hostname's)."""
    try:
        info = socket.getaddrinfo(host, port, type=socket.SOCK_DGRAM)[0]
        with socket.socket(info[0], socket.SOCK_DGRAM) as s:
            s.connect(info[4])
            return s.getsockname()[0]
    except OSError:
        return socket.getfqdn()


def _poll(ready, deadline):
    """Call ready() until it is true (returns True) or `deadline` (a
    time.monotonic() value) passes (returns False), sleeping 1 ms at first,
    then up to 50 ms, between calls."""
    nap = 0.001
    while not ready():
        if time.monotonic() >= deadline:
            return False
        time.sleep(nap)
        nap = min(nap * 2, 0.05)
    return True


def _connect_client(host, port, timeout):
    """A client TCPStore for host:port, retried until the server is up or
    `timeout` (a timedelta) has passed; each attempt is short (see the
    module note).  Returns the store, with _CALL_TIMEOUT as its timeout."""
    deadline = time.monotonic() + timeout.total_seconds()
    while True:
        try:
            store = TCPStore(host, port, None, False, _CONNECT_SLICE)
        except TimeoutError:
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"The client socket has timed out after "
                    f"{int(timeout.total_seconds())}s while trying to connect "
                    f"to ({host}, {port}).") from None
            continue
        store.set_timeout(_CALL_TIMEOUT)
        return store


def _free_port(addr):
    with socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


class _StoreRendezvous:
    """Shared by both backends: the rounds kept in a store."""

    def __init__(self, run_id, timeout):
        self.run_id = run_id
        self.timeout = timeout
        self.round = -1
        self.store = None

    def get_run_id(self):
        return self.run_id

    def _get(self, key):
        """The value of `key`, once some node has set it."""
        deadline = time.monotonic() + self.timeout.total_seconds()
        if not _poll(lambda: self.store.check([key]), deadline):
            raise RuntimeError(
                f"The rendezvous '{self.run_id}' timed out after "
                f"{int(self.timeout.total_seconds())}s waiting for the other "
                f"nodes (key '{key}').")
        return self.store.get(key).decode()

    def num_nodes_waiting(self):
        """How many nodes have joined the round after the current one."""
        key = f"rdzv/{self.round + 1}/joined"
        try:
            if not self.store.check([key]):
                return 0
            return int(self.store.add(key, 0))
        except _STORE_ERRORS:      # the host may be gone at the end
            return 0

    def set_failed(self, group_rank):
        """Tell the other nodes that this node's workers failed for good."""
        try:
            self.store.set("rdzv/failed", str(group_rank))
        except _STORE_ERRORS:
            pass

    def failed_node(self):
        """The group rank of a node whose workers failed for good, or None."""
        try:
            if self.store.check(["rdzv/failed"]):
                return int(self._get("rdzv/failed"))
        except _STORE_ERRORS:
            pass
        return None

    def exit_barrier(self, info, timeout=300):
        """Wait until every node's workers have finished (the node hosting
        the store stays up for the others)."""
        key = f"rdzv/{self.round}/finished"
        try:
            self.store.add(key, 1)
            _poll(lambda: int(self.store.add(key, 0)) >= info.group_world_size,
                  time.monotonic() + timeout)
        except _STORE_ERRORS:      # a peer that hosted the store left
            pass

    def _exchange(self, group_rank, group_world_size, local_world_size):
        """Publish this node's local world size; read everyone's."""
        prefix = f"rdzv/{self.round}/lws/"
        self.store.set(prefix + str(group_rank), str(local_world_size))
        return [int(self._get(prefix + str(r))) for r in range(group_world_size)]


class StaticRendezvous(_StoreRendezvous):
    def __init__(self, master_addr, master_port, node_rank, nnodes, run_id, timeout):
        super().__init__(run_id, timeout)
        self.master_addr = master_addr
        self.master_port = master_port
        self.node_rank = node_rank
        self.nnodes = nnodes

    def get_backend(self):
        return "static"

    def next_rendezvous(self, local_world_size):
        if self.store is None and self.node_rank == 0:
            self.store = TCPStore(self.master_addr, self.master_port, self.nnodes,
                                  True, _CALL_TIMEOUT, wait_for_workers=False,
                                  multi_tenant=True)
        elif self.store is None:
            self.store = _connect_client(self.master_addr, self.master_port,
                                        self.timeout)
        self.round += 1
        self.store.add(f"rdzv/{self.round}/joined", 1)
        lws = self._exchange(self.node_rank, self.nnodes, local_world_size)
        return RendezvousInfo(self.node_rank, self.nnodes, lws, self.master_addr,
                              self.master_port, True)


class C10dRendezvous(_StoreRendezvous):
    def __init__(self, endpoint, run_id, min_nodes, max_nodes, timeout,
                 last_call_timeout=30.0):
        super().__init__(run_id, timeout)
        self.host, self.port = parse_rendezvous_endpoint(endpoint, _DEFAULT_PORT)
        self.min_nodes = min_nodes
        self.max_nodes = max_nodes
        self.last_call_timeout = last_call_timeout

    def get_backend(self):
        return "c10d"

    def _connect(self):
        server = None
        if self.port == 0 or _is_local_host(self.host):
            try:
                server = TCPStore(self.host, self.port, None, True, _CALL_TIMEOUT,
                                  wait_for_workers=False)
            except (RuntimeError, OSError):
                server = None          # another launcher here hosts it
        if server is not None:
            self.port = server.port
        store = server or _connect_client(self.host, self.port, self.timeout)
        self._server = server
        self.store = PrefixStore(f"torch.rendezvous.{self.run_id}", store)

    def next_rendezvous(self, local_world_size):
        if self.store is None:
            self._connect()
        self.round += 1
        key = f"rdzv/{self.round}/joined"
        group_rank = int(self.store.add(key, 1)) - 1
        if group_rank >= self.max_nodes:
            raise RuntimeError(f"The rendezvous '{self.run_id}' is full "
                               f"({self.max_nodes} nodes).")
        closed = f"rdzv/{self.round}/closed"
        if group_rank == 0:
            # the first to arrive closes the round: at max_nodes, or at
            # min_nodes once the last call for others has passed
            deadline = time.monotonic() + self.timeout.total_seconds()
            last_call = None
            while True:
                n = int(self.store.add(key, 0))
                if n >= self.max_nodes:
                    break
                if n >= self.min_nodes:
                    last_call = last_call or time.monotonic() + self.last_call_timeout
                    if time.monotonic() >= last_call:
                        break
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"The node '{socket.gethostname()}' has failed to join "
                        f"the rendezvous '{self.run_id}': timed out waiting for "
                        f"{self.min_nodes} nodes.")
                time.sleep(0.02)
            addr = _local_addr_towards(self.host, self.port)
            self.store.set(closed, json.dumps([n, addr, _free_port(addr)]))
        n, addr, port = json.loads(self._get(closed))
        if group_rank >= n:
            raise RuntimeError(f"The rendezvous '{self.run_id}' was closed with "
                               f"{n} nodes before this node joined.")
        lws = self._exchange(group_rank, n, local_world_size)
        return RendezvousInfo(group_rank, n, lws, addr, port, False)


def create_rendezvous(backend, endpoint, run_id, min_nodes, max_nodes, node_rank,
                      timeout=900, last_call_timeout=30.0):
    """The rendezvous for --rdzv_backend (static needs a fixed node count)."""
    td = datetime.timedelta(seconds=timeout)
    if backend == "static":
        if min_nodes != max_nodes:
            raise ValueError(f"static rendezvous needs a fixed number of nodes, "
                             f"got {min_nodes}:{max_nodes}")
        host, port = parse_rendezvous_endpoint(endpoint, -1)
        if port < 0:
            raise ValueError("Port is missing in endpoint. Endpoint should be "
                             "in format host:port")
        return StaticRendezvous(host, port, node_rank, max_nodes, run_id, td)
    if backend == "c10d":
        return C10dRendezvous(endpoint, run_id, min_nodes, max_nodes, td,
                              last_call_timeout)
    raise ValueError(f"The rendezvous backend '{backend}' is not supported "
                     f"(static, c10d).")
