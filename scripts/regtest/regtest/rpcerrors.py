"""Bitcoin Core's RPC error codes, the error type, and the parameter checks that the node RPCs (rpc.py) and the
wallet RPCs (wallet.py) share; both import it, so neither imports the other at load time."""

from __future__ import annotations

from .primitives import hex_to_hash

# Core's RPCErrorCode values used here
RPC_MISC_ERROR = -1
RPC_TYPE_ERROR = -3
RPC_INVALID_ADDRESS_OR_KEY = -5
RPC_INVALID_PARAMETER = -8
RPC_DESERIALIZATION_ERROR = -22
RPC_VERIFY_ERROR = -25
RPC_VERIFY_REJECTED = -26
RPC_VERIFY_ALREADY_IN_CHAIN = -27
RPC_INVALID_REQUEST = -32600
RPC_METHOD_NOT_FOUND = -32601
RPC_PARSE_ERROR = -32700


class RpcError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def _typename(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _want(v, kind: str):
    if _typename(v) != kind:
        raise RpcError(RPC_TYPE_ERROR, f"JSON value of type {_typename(v)} is not of expected type {kind}")
    return v


def _want_int(v) -> int:
    _want(v, "number")
    if isinstance(v, float) and not v.is_integer():
        raise RpcError(RPC_TYPE_ERROR, "JSON integer out of range")
    return int(v)


def _hash_param(v, name: str) -> bytes:
    _want(v, "string")
    if len(v) != 64:
        raise RpcError(RPC_INVALID_PARAMETER, f"{name} must be of length 64 (not {len(v)}, for '{v}')")
    try:
        return hex_to_hash(v)
    except ValueError:
        raise RpcError(RPC_INVALID_PARAMETER, f"{name} must be hexadecimal string (not '{v}')") from None
