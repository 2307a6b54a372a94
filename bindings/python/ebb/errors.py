"""The exceptions the binding raises."""


class EbbError(Exception):
    """A call into ebb failed.

    ``status`` is the ebb_status value (``ebb.status.CONFIG`` ...), ``name``
    its constant name ("EBB_ERR_CONFIG") and ``message`` ebb's own message,
    which says what was wrong and what to do.
    """

    def __init__(self, status, name, message):
        super().__init__(f"{message} [{name}]" if message else name)
        self.status = status
        self.name = name
        self.message = message


class LibraryNotFoundError(EbbError):
    """libebb could not be loaded; ``tried`` lists every place tried and why."""

    def __init__(self, tried):
        lines = "\n".join(f"  {where}: {why}" for where, why in tried)
        message = (
            "cannot load the ebb library (libebb.so). Tried:\n" + lines + "\n"
            "Set EBB_LIBRARY to the path of libebb.so, build the library "
            "(cmake --build build/release), or install it (make install, or "
            "pip install ./bindings/python, which bundles it)."
        )
        super().__init__(-1, "LIBRARY_NOT_FOUND", message)
        self.tried = list(tried)


class status:  # noqa: N801 - a namespace of constants, like an enum
    """ebb_status values (include/ebb/error.h)."""

    OK = 0
    INVALID_ARG = 1
    NO_MEMORY = 2
    IO = 3
    NO_SPACE = 4
    CONFIG = 5
    UNSUPPORTED = 6
    CALLBACK = 7
    CHECKSUM = 8
    SCHEDULE = 9
    STATE = 10
    INTERNAL = 11
