"""ErrorHandler: writes a worker's uncaught exception as JSON to the file
named by TORCHELASTIC_ERROR_FILE (which the launcher sets per worker), so
the launcher's failure summary can show the worker's own traceback."""
import faulthandler
import json
import os
import time
import traceback
import warnings

from ...utils.logging import get_logger

__all__ = ["ErrorHandler"]

log = get_logger(__name__)


class ErrorHandler:
    def _get_error_file_path(self):
        return os.environ.get("TORCHELASTIC_ERROR_FILE", None)

    def initialize(self):
        """Dump all threads' stacks on a fatal signal (faulthandler)."""
        try:
            faulthandler.enable(all_threads=True)
        except Exception as e:  # noqa: BLE001 - stderr may be closed
            warnings.warn(f"Unable to enable fault handler. {type(e).__name__}: {e}")

    def _write_error_file(self, file_path, error_msg):
        try:
            with open(file_path, "w") as fp:
                fp.write(error_msg)
        except Exception as e:  # noqa: BLE001
            warnings.warn(f"Unable to write error to file. {type(e).__name__}: {e}")

    def record_exception(self, e):
        """Write {"message": {"message", "extraInfo": {"py_callstack",
        "timestamp"}}} for the exception being handled."""
        file = self._get_error_file_path()
        if file:
            data = {
                "message": {
                    "message": f"{type(e).__name__}: {e}",
                    "extraInfo": {
                        "py_callstack": traceback.format_exc(),
                        "timestamp": str(int(time.time())),
                    },
                }
            }
            with open(file, "w") as fp:
                json.dump(data, fp)

    def override_error_code_in_rootcause_data(self, rootcause_error_file,
                                              rootcause_error, error_code=0):
        if "message" not in rootcause_error:
            log.warning(
                f"child error file ({rootcause_error_file}) does not have field "
                f"`message`. \ncannot override error code: {error_code}")
        elif isinstance(rootcause_error["message"], str):
            log.warning(
                f"child error file ({rootcause_error_file}) has a new message "
                f"format. \nskipping error code override")
        else:
            rootcause_error["message"]["errorCode"] = error_code

    def dump_error_file(self, rootcause_error_file, error_code=0):
        """Copy a child's error file to this process's own (the launcher
        of a launcher passes the root cause up)."""
        with open(rootcause_error_file, "r") as fp:
            rootcause_error = json.load(fp)
        if error_code:
            self.override_error_code_in_rootcause_data(
                rootcause_error_file, rootcause_error, error_code)
        my_error_file = self._get_error_file_path()
        if my_error_file:
            if os.path.isfile(my_error_file):
                os.remove(my_error_file)
            self._write_error_file(my_error_file, json.dumps(rootcause_error))
            log.info(f"dumped error file to parent's {my_error_file}")
        else:
            log.error(
                f"no error file defined for parent, to copy child error file "
                f"({rootcause_error_file})")
