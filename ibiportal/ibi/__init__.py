"""The identification standard (file 004) as pure Python: no Flask, no I/O, injectable clock."""
