"""Writes that never replace what they did not check, and deletions of only our own files.

- `rename_no_replace`: the one final rename of every output that must not replace
  anything (``renameat2(RENAME_NOREPLACE)`` on Linux; elsewhere a method that can never
  replace a non-empty directory or a file).
- `write_file_atomic`: a temporary file in the same folder, synced, renamed into place
  (replacing, or with `rename_no_replace`); returns the file's identity.
- `publish_dir`: a finished temporary directory renamed into place; an existing one is
  swapped with it in one step (`exchange`, ``renameat2(RENAME_EXCHANGE)``: the path
  always holds a whole output, even if the process is killed; elsewhere it is moved
  aside first), and what was swapped out is what is checked and then deleted.
- `remove_own_file`, `remove_tree`: delete a file only if it is still the one written
  (device and inode), a tree without ever following a symbolic link.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import secrets
import stat
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["NotReplacedError", "before_final_rename", "check_not_link", "exchange",
           "file_identity", "publish_dir",
           "remove_own_file", "remove_tree", "rename_no_replace", "sync_dir", "temp_dir",
           "temp_file", "write_file_atomic", "write_synced"]

_AT_FDCWD, _RENAME_NOREPLACE, _RENAME_EXCHANGE = -100, 1, 2


class NotReplacedError(FileExistsError):
    """Something appeared at an output's path while it was written; it was left alone.

    The finished output was kept under a visible name, which the message names.
    """


def _load_renameat2() -> Callable[..., int] | None:
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2  # glibc >= 2.28
    except (OSError, AttributeError, TypeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                         ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


_RENAMEAT2 = _load_renameat2()


def rename_no_replace(src: str | os.PathLike, dst: str | os.PathLike) -> None:
    """Rename ``src`` to ``dst`` atomically, never replacing anything at ``dst``.

    Raises ``FileExistsError`` when ``dst`` exists (a file, a folder, empty or not, a
    symbolic link). Without ``renameat2`` (or on a file system that lacks the flag), a
    directory is renamed onto an empty directory claimed first with ``mkdir`` (a rename
    never replaces a non-empty directory), a file is hard-linked then unlinked.
    """
    src_b, dst_b = os.fsencode(src), os.fsencode(dst)
    if _RENAMEAT2 is not None:
        if _RENAMEAT2(_AT_FDCWD, src_b, _AT_FDCWD, dst_b, _RENAME_NOREPLACE) == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
            # named by the destination (the hidden temporary source means nothing to users)
            raise OSError(code, os.strerror(code), os.fsdecode(dst), None, os.fsdecode(src))
    if stat.S_ISDIR(os.lstat(src_b).st_mode):
        os.mkdir(dst_b)  # FileExistsError if anything is there; else dst is our empty folder
        try:
            os.rename(src_b, dst_b)  # fails if dst is no longer empty
        except BaseException:
            with contextlib.suppress(OSError):
                os.rmdir(dst_b)
            raise
        return
    try:
        os.link(src_b, dst_b, follow_symlinks=False)  # FileExistsError if dst exists
    except FileExistsError:
        raise
    except OSError:  # hard links unsupported: check, then rename (a short window)
        if os.path.lexists(dst_b):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST),
                                  os.fsdecode(dst)) from None
        os.rename(src_b, dst_b)
        return
    os.unlink(src_b)


def exchange(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Swap two existing paths atomically (``renameat2(RENAME_EXCHANGE)``).

    False, with nothing changed, where the system or file system cannot (the caller
    then moves one aside instead).
    """
    if _RENAMEAT2 is None:
        return False
    a_b, b_b = os.fsencode(a), os.fsencode(b)
    if _RENAMEAT2(_AT_FDCWD, a_b, _AT_FDCWD, b_b, _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), os.fsdecode(a), None, os.fsdecode(b))


def temp_dir(parent: Path, prefix: str, suffix: str) -> Path:
    """A new empty directory in ``parent`` with a random name.

    Unlike ``tempfile.mkdtemp`` (always mode 0700) its mode follows the umask, like
    any new folder, so it can be renamed into place as the final output.
    """
    for _ in range(100):
        path = parent / f"{prefix}{secrets.token_hex(8)}{suffix}"
        try:
            os.mkdir(path)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"cannot create a temporary directory in {parent}")


def temp_file(parent: Path, prefix: str, suffix: str) -> tuple[int, Path]:
    """A new empty file in ``parent`` (mode 0666 minus the umask): ``(fd, path)``."""
    for _ in range(100):
        path = parent / f"{prefix}{secrets.token_hex(8)}{suffix}"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        return fd, path
    raise FileExistsError(f"cannot create a temporary file in {parent}")


def file_identity(path: str | os.PathLike) -> tuple[int, int]:
    """``(device, inode)`` of ``path`` itself (a symbolic link is not followed)."""
    st = os.lstat(path)
    return st.st_dev, st.st_ino


def write_synced(path: str | os.PathLike, data: bytes) -> None:
    """Write a new file (never an existing one) and sync it to the disk.

    For the files of a folder renamed into place once whole (`publish_dir`): synced
    first, so that a machine that stops after the rename finds them whole.
    """
    with open(path, "xb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def sync_dir(path: str | os.PathLike) -> None:
    """Sync a folder's entries (the renames into it) to the disk.

    A file system that cannot sync a folder (``EINVAL``, ``ENOTSUP``; Windows cannot
    open one) is let be; any other error (``EIO``) is raised.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # (Windows: folders are not opened so)
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def write_file_atomic(path: str | os.PathLike, data: bytes, *,
                      replace: bool = True) -> tuple[int, int]:
    """Write a file atomically: a temporary file in the same folder, synced, renamed.

    Readers see the old content or the new one, never a part; an interrupted write
    leaves at most a hidden ``.NAME.*.tmp`` file behind. With ``replace=False`` the
    rename never replaces anything (`rename_no_replace`: ``FileExistsError``). A symbolic
    link at ``path`` is never replaced (the rename would delete the user's link):
    ``ValueError``, checked before writing and again right before the rename.
    Returns the written file's `file_identity`.
    """
    path = Path(path)
    check_not_link(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_file(path.parent, f".{path.name}.", ".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            st = os.fstat(fh.fileno())
        check_not_link(path)
        (os.replace if replace else rename_no_replace)(tmp, path)
    except BaseException:
        remove_own_file(tmp, None)
        raise
    sync_dir(path.parent)  # the rename itself, durable
    return st.st_dev, st.st_ino


def check_not_link(path: Path) -> None:
    """Refuse (``ValueError``) an output file's path that is a symbolic link.

    The one rule of every file hawks-deap replaces (`write_file_atomic`, and the command
    line before any work): a rename over a link would delete the user's link, and
    writing through it would change a file elsewhere.
    """
    if path.is_symlink():
        raise ValueError(f"{path} is a symbolic link (to {os.path.realpath(path)}); "
                         "hawks-deap replaces regular files only, never a link")


def remove_own_file(path: str | os.PathLike, identity: tuple[int, int] | None) -> bool:
    """Unlink ``path`` if it is a regular file and, given ``identity``, still that file.

    A symbolic link is never followed (nor removed); a file that replaced ours since,
    reached through whatever path, is left alone. Returns whether it was removed.
    """
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or (identity is not None
                                            and (st.st_dev, st.st_ino) != tuple(identity)):
            return False
        os.unlink(path)
    except FileNotFoundError:
        return False
    return True


def remove_tree(path: str | os.PathLike[str], identity: tuple[int, int] | None = None,
                names: Iterable[str] | None = None) -> bool:
    """Delete a directory we made, never following a symbolic link; return True if gone.

    Nothing is deleted unless ``path`` is a real directory (and, given ``identity``,
    still the one made). Given ``names``, only those entries (regular files) are
    deleted, and the directory only if that empties it; otherwise every entry is, with
    sub-directories entered only when they are real directories (links are unlinked).
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True
    if not stat.S_ISDIR(st.st_mode) or (identity is not None
                                        and (st.st_dev, st.st_ino) != tuple(identity)):
        return False
    allowed = None if names is None else set(names)
    for entry in list(os.scandir(path)):
        if entry.is_dir(follow_symlinks=False):
            if allowed is None:
                remove_tree(entry.path)
        elif allowed is None or (entry.name in allowed and entry.is_file(follow_symlinks=False)):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
    try:
        os.rmdir(path)
    except OSError:
        return False
    return True


def _visible(target: Path, tag: str, src: Path) -> Path:
    """Rename ``src`` beside ``target`` as ``NAME.TAG-HEX`` (never replacing); return it."""
    for _ in range(100):
        kept = target.with_name(f"{target.name}.{tag}-{secrets.token_hex(3)}")
        try:
            rename_no_replace(src, kept)
        except FileExistsError:
            continue
        return kept
    raise FileExistsError(f"cannot find a free name beside {target}")


def publish_dir(tmp: Path, target: Path, *, overwrite: bool,
                check: Callable[[Path], None], names: Iterable[str],
                shown: str | os.PathLike | None = None) -> None:
    """Rename the finished directory ``tmp`` (a sibling of ``target``) into place.

    Nothing is replaced that was not checked: with ``overwrite``, an existing
    ``target`` is swapped with ``tmp`` in one step (`exchange`, so that ``target`` never
    goes missing, even if the process is killed), ``check`` runs on what was swapped
    out (a ``ValueError`` refuses: the two are swapped back, ``tmp`` kept as below), and
    only its entries ``names`` are deleted. Where the system cannot swap, ``target`` is
    moved aside first, checked, and ``tmp`` renamed into place. The final rename never
    replaces anything: when something appeared at ``target`` meanwhile, it is left
    alone, ``tmp`` is kept under a visible name ``NAME.kept-HEX`` and
    `NotReplacedError` names it (a folder moved aside that cannot go back keeps a
    visible name too, ``NAME.previous-HEX``).
    """
    shown = target if shown is None else shown
    if overwrite and os.path.lexists(target) and _swap_in(tmp, target, check, names, shown):
        return
    aside = None
    if overwrite and os.path.lexists(target):
        aside = target.with_name(f".{target.name}.{secrets.token_hex(8)}.old")
        rename_no_replace(target, aside)
        moved = aside
        _check_or_undo(check, aside, lambda: _put_back(moved, target, shown), tmp, target,
                       shown)
    try:
        before_final_rename(tmp, target)
        rename_no_replace(tmp, target)
    except FileExistsError:
        kept = _shown(shown, _visible(target, "kept", tmp))
        previous = "" if aside is None else _put_back(aside, target, shown)
        raise NotReplacedError(errno.EEXIST, f"{shown} was created by something else while "
                               "this output was written, and was left as it is; the finished "
                               f"output is in {kept}{previous}") from None
    except BaseException:
        if aside is not None:
            _put_back(aside, target)
        raise
    if aside is not None:
        _delete_replaced(aside, target, names, shown)


def _swap_in(tmp: Path, target: Path, check: Callable[[Path], None], names: Iterable[str],
             shown: str | os.PathLike) -> bool:
    """`publish_dir` with ``overwrite`` by `exchange`; False if the system cannot swap."""
    before_final_rename(tmp, target)
    if not exchange(tmp, target):
        return False
    old = tmp  # the name now holds what was at target

    def swap_back() -> str:  # the folder back at its place, the new output at tmp
        exchange(old, target)
        return ""

    _check_or_undo(check, old, swap_back, tmp, target, shown)
    _delete_replaced(old, target, names, shown, depth=2)
    return True


def _check_or_undo(check: Callable[[Path], None], old: Path, undo: Callable[[], str],
                   tmp: Path, target: Path, shown: str | os.PathLike) -> None:
    """Check the folder an overwrite took out of ``target``; if refused, put it back.

    ``undo`` puts it back and says where, if not at ``target``. A ``ValueError`` (it
    changed since the caller's check before the work) becomes `NotReplacedError`, the
    finished output ``tmp`` kept under a visible name; anything else is raised again.
    """
    try:
        check(old)
    except ValueError as error:
        previous = undo()
        kept = _shown(shown, _visible(target, "kept", tmp))
        raise NotReplacedError(errno.EEXIST, f"{error}; the finished output is in "
                               f"{kept}{previous}") from None
    except BaseException:
        undo()
        raise


def _delete_replaced(old: Path, target: Path, names: Iterable[str],
                     shown: str | os.PathLike, depth: int = 1) -> None:
    """Delete the entries ``names`` of the replaced folder ``old``; warn of any other.

    ``depth``: the calls between `publish_dir` and here (the warning names its caller).
    """
    if not remove_tree(old, names=names):
        kept = _shown(shown, _visible(target, "replaced", old))
        warnings.warn(f"{shown} was replaced, but the replaced folder still holds files "
                      f"(they appeared meanwhile, or could not be deleted); they are in "
                      f"{kept}", RuntimeWarning, stacklevel=2 + depth)


def before_final_rename(tmp: Path, target: Path) -> None:
    """Nothing; tests replace it to make things happen just before the final rename."""


def _put_back(aside: Path, target: Path, shown: str | os.PathLike | None = None) -> str:
    """Rename ``aside`` back to ``target``, or to a visible name if taken: what to tell."""
    try:
        rename_no_replace(aside, target)
    except FileExistsError:
        previous = _shown(target if shown is None else shown,
                          _visible(target, "previous", aside))
        return f" (the folder it would have replaced is in {previous})"
    return ""


def _shown(shown: str | os.PathLike, sibling: Path) -> Path:
    """``sibling`` (beside the output) named the way the output is named in ``shown``."""
    given = Path(shown)
    return given.with_name(sibling.name) if given.name not in ("", "..") else sibling
