"""How the machine sees an array: words of 4, 8 or 16 bytes, whatever the dtype says.

The machine moves bits and never looks inside a word, so an array of any
fixed-size dtype runs as the unsigned word of its size; 1- and 2-byte elements
are widened to 4-byte words (each value zero-extended, so narrowing back gives
the same bits) since the kernels move 4-, 8- and 16-byte words only.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Protocol, Tuple, Union

import numpy as np
import numpy.typing as npt


class SupportsDLPack(Protocol):
    """An array offering DLPack: a PyTorch tensor, a JAX or CuPy array, a NumPy array."""

    def __dlpack__(self, *, stream: Any = ...) -> Any: ...

    def __dlpack_device__(self) -> Tuple[int, int]: ...


class SupportsCudaArrayInterface(Protocol):
    """An array in device memory behind __cuda_array_interface__ (CuPy, Numba)."""

    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]: ...


#: What the functions take as an array: anything NumPy takes, or a DLPack or CUDA array.
ArrayInput = Union[npt.ArrayLike, SupportsDLPack, SupportsCudaArrayInterface]

#: The word an element of each size travels as.
WORDS: Dict[int, np.dtype[Any]] = {4: np.dtype("<u4"), 8: np.dtype("<u8"), 16: np.dtype("<c16")}
#: 1- and 2-byte elements, seen as unsigned integers so that widening keeps their bits.
NARROW: Dict[int, np.dtype[Any]] = {1: np.dtype("u1"), 2: np.dtype("<u2")}

# DLPack device types: GPU memory (CUDA, CUDA managed) and host memory NumPy can view (CPU, CUDA pinned).
DLPACK_CUDA = (2, 13)
DLPACK_HOST = (1, 3)


def element_dtype(dtype: npt.DTypeLike, what: str = "dtype") -> np.dtype[Any]:
    """The dtype, checked: fixed-size elements of 1, 2, 4, 8 or 16 bytes, no Python objects."""
    dt = np.dtype(dtype)
    if dt.hasobject or dt.itemsize not in (1, 2, 4, 8, 16):
        why = "holds Python objects" if dt.hasobject else f"has {dt.itemsize}-byte elements"
        raise TypeError(f"{what} {dt.str!r} ({dt.name}) {why}: hcube moves the bits of fixed-size elements of "
                        "1, 2, 4, 8 or 16 bytes")
    return dt


def word_dtype(dt: np.dtype[Any]) -> np.dtype[Any]:
    """The word the machine moves for elements of dtype dt (1 and 2 bytes: widened to 4)."""
    return WORDS.get(dt.itemsize, WORDS[4])


def to_words(a: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """a as the machine's words: a view when the size is a word's (any strides), else a widened copy in C order."""
    size = a.dtype.itemsize
    if size in WORDS:
        return a.view(WORDS[size])
    return a.view(NARROW[size]).astype(WORDS[4], order="C")


def store_words(dst: npt.NDArray[Any], words: npt.NDArray[Any]) -> None:
    """Writes words (as to_words gives them) into dst, any strides; narrowing keeps the widened bits."""
    size = dst.dtype.itemsize
    if size in WORDS:
        np.copyto(dst.view(WORDS[size]), words.reshape(dst.shape))
    else:
        np.copyto(dst.view(NARROW[size]), words.reshape(dst.shape), casting="unsafe")


def from_words(words: npt.NDArray[Any], dt: np.dtype[Any]) -> npt.NDArray[Any]:
    """A new-or-viewed array of dtype dt holding these words' bits."""
    if dt.itemsize in WORDS:
        return words.view(dt)
    return words.astype(NARROW[dt.itemsize]).view(dt)


def dlpack_device(a: Any) -> Optional[int]:
    """The DLPack device type of an array offering DLPack (not a NumPy array), else None."""
    if isinstance(a, np.ndarray) or not hasattr(a, "__dlpack__") or not hasattr(a, "__dlpack_device__"):
        return None
    return int(a.__dlpack_device__()[0])


def is_device(a: Any) -> bool:
    """Whether a lives in GPU memory: DLPack first, as the extension reads it, then __cuda_array_interface__."""
    if isinstance(a, np.ndarray):
        return False
    where = dlpack_device(a)
    return where in DLPACK_CUDA if where is not None else hasattr(a, "__cuda_array_interface__")


def host_view(a: Any) -> Optional[npt.NDArray[Any]]:
    """A NumPy view of a host array behind DLPack (read-only), or None when NumPy cannot view it."""
    if dlpack_device(a) not in DLPACK_HOST:
        return None
    try:
        return np.from_dlpack(a)
    except (BufferError, TypeError, ValueError, RuntimeError):
        return None  # bfloat16 and the like: the extension's reader says why


def copy(a: Any) -> Any:
    """A new array of a's kind: NumPy and CuPy arrays copy with .copy(), PyTorch tensors with .clone()."""
    for name in ("copy", "clone"):
        if callable(getattr(a, name, None)):
            return getattr(a, name)()
    raise TypeError("%s: the result is a new array, and this array has neither copy() nor clone()"
                    % type(a).__name__)


def assign(out: Any, a: Any) -> None:
    """out[...] = a for device arrays: PyTorch's copy_(), else item assignment (CuPy)."""
    if callable(getattr(out, "copy_", None)):
        out.copy_(a)
    else:
        out[...] = a


def log2_exact(count: int) -> int:
    """log2(count) for a power of two, else -1."""
    return count.bit_length() - 1 if count > 0 and count & (count - 1) == 0 else -1


def shape_tuple(shape: Any) -> Tuple[int, ...]:
    """A shape given as an int or a sequence of ints, as NumPy takes it."""
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)
