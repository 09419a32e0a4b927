"""Rendezvous: turn an init_method URL into (store, rank, world_size).

Handlers are generators registered per URL scheme (env://, tcp://,
file://), as in torch.distributed.rendezvous; a handler yields one triplet
and raises if asked for a second (re-rendezvous is not supported).
"""
import numbers
import os
from urllib.parse import urlparse, urlunparse

from .constants import default_pg_timeout

__all__ = ["register_rendezvous_handler", "rendezvous"]

_rendezvous_handlers = {}


def register_rendezvous_handler(scheme, handler):
    """Register `handler` (a generator function taking the URL and keyword
    arguments, yielding (store, rank, world_size)) for `scheme`://."""
    if scheme in _rendezvous_handlers:
        raise RuntimeError(
            "Rendezvous handler for {}:// already registered".format(scheme))
    _rendezvous_handlers[scheme] = handler


def _query_to_dict(query):
    """"rank=0&world_size=1" -> {"rank": "0", "world_size": "1"}."""
    return dict(pair.split("=") for pair in query.split("&") if pair)


def _rendezvous_helper(url, rank, world_size_opt, **kwargs):
    """Add rank and world_size (given, or from RANK / WORLD_SIZE for env://)
    to the URL's query, then call the scheme's handler."""
    result = urlparse(url)
    if world_size_opt is None:
        world_size = -1
        if result.scheme == "env":
            rank = int(os.environ.get("RANK", rank))
            # without WORLD_SIZE the group is dynamic
            world_size = int(os.environ.get("WORLD_SIZE", world_size))
    else:
        world_size = world_size_opt
    if rank != -1 or world_size != -1 or world_size_opt is None:
        query = _query_to_dict(result.query)
        assert "rank" not in query and "world_size" not in query, (
            "The url: {url} has node-specific arguments(rank, world_size) "
            "already.".format(url=url))
        if rank != -1:
            query["rank"] = str(rank)
        if world_size != -1 or world_size_opt is None:
            query["world_size"] = str(world_size)
        result = result._replace(
            query="&".join("{}={}".format(k, v) for k, v in query.items()))
        url = urlunparse(result)
    if result.scheme not in _rendezvous_handlers:
        raise RuntimeError("No rendezvous handler for {}://".format(result.scheme))
    return _rendezvous_handlers[result.scheme](url, **kwargs)


def rendezvous(url, rank=-1, world_size=-1, **kwargs):
    """The handler's iterator for `url`; next() of it gives
    (store, rank, world_size)."""
    if not isinstance(url, str):
        raise RuntimeError("`url` must be a string. {}: {}".format(type(url), url))
    if not isinstance(rank, numbers.Integral):
        raise RuntimeError("`rank` must be an integer. {}".format(rank))
    if not isinstance(world_size, numbers.Integral):
        raise RuntimeError("`world_size` must be an integer. {}".format(world_size))
    return _rendezvous_helper(url, rank, world_size, **kwargs)


def _create_store_from_options(backend_options, rank):
    store, _, _ = next(_rendezvous_helper(backend_options.init_method, rank, None))
    return store


def _rendezvous_error(msg):
    return ValueError("Error initializing torch.distributed using " + msg)


def _rank_and_world_size(query, error):
    if "rank" not in query:
        raise error("rank parameter missing")
    if "world_size" not in query:
        raise error("world size parameter missing")
    return int(query["rank"]), int(query["world_size"])


def _file_rendezvous_handler(url, **kwargs):
    from . import FileStore

    def _error(msg):
        return _rendezvous_error("file:// rendezvous: " + msg)

    result = urlparse(url)
    if not result.path:
        raise _error("path missing")
    rank, world_size = _rank_and_world_size(_query_to_dict(result.query), _error)
    store = FileStore(result.path, world_size)
    yield (store, rank, world_size)
    raise RuntimeError("Unable to perform rerendezvous using file:// method")


def _torchelastic_use_agent_store():
    return os.environ.get("TORCHELASTIC_USE_AGENT_STORE", None) == str(True)


def _create_c10d_store(hostname, port, rank, world_size, timeout):
    """A TCPStore client, hosted by rank 0 (or by the elastic agent when
    TORCHELASTIC_USE_AGENT_STORE is set).  The master does not wait for its
    clients here: init_process_group's join check waits for the ranks and
    names the ones that never come."""
    from . import PrefixStore, TCPStore

    if not 0 <= port < 2**16:
        raise ValueError(f"port must have value from 0 to 65535 but was {port}.")
    if _torchelastic_use_agent_store():
        attempt = os.environ["TORCHELASTIC_RESTART_COUNT"]
        tcp_store = TCPStore(hostname, port, world_size, False, timeout)
        return PrefixStore(f"/worker/attempt_{attempt}", tcp_store)
    return TCPStore(hostname, port, world_size, rank == 0, timeout,
                    wait_for_workers=False, multi_tenant=True)


def _tcp_rendezvous_handler(url, timeout=default_pg_timeout, **kwargs):
    def _error(msg):
        return _rendezvous_error("tcp:// rendezvous: " + msg)

    result = urlparse(url)
    if not result.port:
        raise _error("port number missing")
    rank, world_size = _rank_and_world_size(_query_to_dict(result.query), _error)
    assert result.hostname is not None
    store = _create_c10d_store(result.hostname, result.port, rank, world_size, timeout)
    yield (store, rank, world_size)
    raise RuntimeError("Unable to perform re-rendezvous using tcp:// method")


def _env_rendezvous_handler(url, timeout=default_pg_timeout, **kwargs):
    def _error(msg):
        return _rendezvous_error("env:// rendezvous: " + msg)

    def _get_env_or_raise(var):
        value = os.environ.get(var, None)
        if not value:
            raise _error("environment variable %s expected, but not set" % var)
        return value

    query = _query_to_dict(urlparse(url).query)
    if "rank" in query:
        rank = int(query["rank"])
    else:
        rank = int(_get_env_or_raise("RANK"))
    if "world_size" in query:
        world_size = int(query["world_size"])
    else:
        world_size = int(_get_env_or_raise("WORLD_SIZE"))
    master_addr = _get_env_or_raise("MASTER_ADDR")
    master_port = int(_get_env_or_raise("MASTER_PORT"))
    store = _create_c10d_store(master_addr, master_port, rank, world_size, timeout)
    yield (store, rank, world_size)
    raise RuntimeError("Unable to perform re-rendezvous using env:// method")


register_rendezvous_handler("tcp", _tcp_rendezvous_handler)
register_rendezvous_handler("env", _env_rendezvous_handler)
register_rendezvous_handler("file", _file_rendezvous_handler)
