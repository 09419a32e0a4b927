"""Rendezvous of launchers (agents): each node's launcher learns its group
rank, the number of nodes and every node's local world size, through a
TCPStore that one of them hosts.  See api.py."""
from .api import (  # noqa: F401
    C10dRendezvous, RendezvousInfo, StaticRendezvous, create_rendezvous,
    parse_rendezvous_endpoint,
)
