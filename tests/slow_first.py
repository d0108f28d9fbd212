"""The order in which pytest-xdist deals the test files out (bin/test, docs/test-time.md)."""

#: The files that take longest (docs/test-time.md), slowest first. Collected first, so that
#: pytest-xdist (``--dist loadfile --no-loadscope-reorder``, bin/test) starts each of them at once:
#: dealt last, one of them kept its worker busy minutes after the other had run out of files.
SLOW_FIRST = (
    "tests/web/api/test_openapi.py",
    "tests/web/api/test_openapi_bodies.py",
    "tests/browser/test_page_checks.py",
    "tests/browser/test_browser_everyday.py",
    "tests/browser/test_browser_form_errors.py",
    "tests/reliability/test_archive_faults.py",
    "tests/reliability/test_outage_two_nodes.py",
    "tests/security/test_fuzz_routes.py",
    "tests/browser/test_browser_items.py",
    "tests/reliability/test_multi_node.py",
    "tests/security/test_fuzz_parsers.py",
    "tests/browser/test_browser_references.py",
    "tests/browser/test_browser_admin.py",
    "tests/browser/test_browser_trace.py",
    "tests/cli/test_resolvers.py",
)
