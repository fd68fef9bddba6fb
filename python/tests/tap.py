"""The lines the package's tests print, as tests/cli/lib.sh counts them:
"ok - ...", "not ok - ...", "skip - ...: why", and the summary line."""

import gemmtab

counts = {"passed": 0, "failed": 0, "skipped": 0}


def ok(what, cond, detail=""):
    if cond:
        counts["passed"] += 1
        print(f"ok - {what}")
    else:
        counts["failed"] += 1
        print(f"not ok - {what} {detail}")


def skip(what, why):
    counts["skipped"] += 1
    print(f"skip - {what}: {why}")


def raises(what, fn, argument, status):
    """fn() must raise GemmtabError naming argument, with status and its string."""
    try:
        fn()
    except gemmtab.GemmtabError as e:
        ok(f"{what}: GemmtabError on {argument} ({e})",
           e.argument == argument and e.status == status and gemmtab.status_string(status) in str(e))
        return
    except Exception as e:  # noqa: BLE001 - any other exception is the failure
        ok(what, False, f"raised {e!r}")
        return
    ok(what, False, "raised nothing")


def summary():
    """Print the summary line; the exit status: 1 when any check failed."""
    line = f"{counts['passed']} passed, {counts['failed']} failed"
    if counts["skipped"]:
        line += f", {counts['skipped']} skipped"
    print(line)
    return 1 if counts["failed"] else 0
