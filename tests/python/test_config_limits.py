"""Config().load_string goes through ebb_config_load_string, which bounds
what reaches the TOML parser: a 50,000-part dotted key, which would
overflow the parser's stack and kill the interpreter, is an EbbError naming
the line and the limit (docs/configuration.md, Limits)."""
import pytest

import ebb


@pytest.mark.parametrize("text", [
    "[" + ".".join(["a"] * 50000) + "]\nx = 1\n",
    ".".join(["a"] * 50000) + " = 1\n",
])
def test_huge_dotted_key_is_an_error(text):
    cfg = ebb.Config()
    with pytest.raises(ebb.EbbError) as err:
        cfg.load_string(text)
    assert ":1: a dotted key of more than 64 parts" in str(err.value)
    assert "Limits" in str(err.value)
